#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "data/token_pair.h"

namespace sl {

// A padded mini-batch in host memory, row-major [B x S] / [B x T], padded with vocab::kPad.
// Row b: src = source ids + EOS; tgt_out = target ids + EOS; tgt_in = BOS + target ids
// (tgt_out shifted right), so tgt_in[t] predicts tgt_out[t].
struct Batch {
  int B = 0, S = 0, T = 0;
  std::vector<int32_t> src;      // B*S
  std::vector<int32_t> tgt_in;   // B*T
  std::vector<int32_t> tgt_out;  // B*T
  std::vector<int32_t> src_lengths, tgt_lengths;  // B, with EOS
  int64_t src_tokens = 0, tgt_tokens = 0;  // real (non-pad) tokens, with EOS
  std::vector<uint32_t> ids;  // the row's index in the sentence list it was made from

  int32_t src_at(int b, int s) const { return src[static_cast<size_t>(b) * S + s]; }
  int32_t tgt_in_at(int b, int t) const { return tgt_in[static_cast<size_t>(b) * T + t]; }
  int32_t tgt_out_at(int b, int t) const { return tgt_out[static_cast<size_t>(b) * T + t]; }
};

// Batch of pairs[indices[0]], pairs[indices[1]], ... in that order (ids = indices).
Batch make_batch(const std::vector<TokenPair>& pairs, const std::vector<uint32_t>& indices);

// Batch of all `pairs` in order; a pair with an empty target gives tgt_in = [BOS] and
// tgt_out = [EOS] (decoding needs only src).
Batch make_batch(const std::vector<TokenPair>& pairs);

}  // namespace sl
