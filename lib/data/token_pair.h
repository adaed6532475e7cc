#pragma once
#include <cstdint>
#include <vector>

namespace sl {

// One encoded sentence pair: SentencePiece ids without BOS/EOS (batching adds those).
struct TokenPair {
  std::vector<int32_t> src, tgt;
};

}  // namespace sl
