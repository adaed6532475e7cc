#pragma once
#include <cstdint>

namespace sl {

// Ids of the special symbols, fixed for every SentencePiece model this toolkit trains
// (pad_id=0 unk_id=1 bos_id=2 eos_id=3), so models, batches and decoders agree on them
// without passing the vocabulary around.
namespace vocab {
constexpr int32_t kPad = 0;
constexpr int32_t kUnk = 1;
constexpr int32_t kBos = 2;
constexpr int32_t kEos = 3;
}  // namespace vocab

}  // namespace sl
