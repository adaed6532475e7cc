#include "data/batch.h"

#include <algorithm>
#include <numeric>

#include "data/vocab.h"

namespace sl {

Batch make_batch(const std::vector<TokenPair>& pairs, const std::vector<uint32_t>& indices) {
  Batch b;
  b.B = static_cast<int>(indices.size());
  for (uint32_t i : indices) {
    b.S = std::max(b.S, static_cast<int>(pairs[i].src.size()) + 1);
    b.T = std::max(b.T, static_cast<int>(pairs[i].tgt.size()) + 1);
  }
  b.src.assign(static_cast<size_t>(b.B) * b.S, vocab::kPad);
  b.tgt_in.assign(static_cast<size_t>(b.B) * b.T, vocab::kPad);
  b.tgt_out.assign(static_cast<size_t>(b.B) * b.T, vocab::kPad);
  b.ids = indices;
  for (int r = 0; r < b.B; ++r) {
    const TokenPair& p = pairs[indices[r]];
    int32_t* src = b.src.data() + static_cast<size_t>(r) * b.S;
    int32_t* tin = b.tgt_in.data() + static_cast<size_t>(r) * b.T;
    int32_t* tout = b.tgt_out.data() + static_cast<size_t>(r) * b.T;
    std::copy(p.src.begin(), p.src.end(), src);
    src[p.src.size()] = vocab::kEos;
    tin[0] = vocab::kBos;
    std::copy(p.tgt.begin(), p.tgt.end(), tin + 1);
    std::copy(p.tgt.begin(), p.tgt.end(), tout);
    tout[p.tgt.size()] = vocab::kEos;
    b.src_lengths.push_back(static_cast<int32_t>(p.src.size()) + 1);
    b.tgt_lengths.push_back(static_cast<int32_t>(p.tgt.size()) + 1);
    b.src_tokens += b.src_lengths.back();
    b.tgt_tokens += b.tgt_lengths.back();
  }
  return b;
}

Batch make_batch(const std::vector<TokenPair>& pairs) {
  std::vector<uint32_t> all(pairs.size());
  std::iota(all.begin(), all.end(), 0u);
  return make_batch(pairs, all);
}

}  // namespace sl
