#pragma once
#include "common/counter_rng.h"  // SL_HOST_DEVICE

// The per-element rules of Device::length_mask and Device::row_top_k, on host and device:
// the CPU and CUDA backends both call these, so they agree by construction (and the decoders'
// host-side merge ranks candidates with the same order).
namespace sl {

// Weight of position pos in a sentence of length len: 1 (or 1/len for a mean) inside, 0 past.
SL_HOST_DEVICE inline float length_weight(int pos, int len, bool mean) {
  return pos < len ? (mean ? 1.0f / static_cast<float>(len) : 1.0f) : 0.0f;
}

// Whether (value a, column ac) ranks before (b, bc): value descending, then column ascending;
// NaN after every number (NaNs among themselves by column). A strict total order, so a top-k
// under it is unique.
SL_HOST_DEVICE inline bool ranks_before(float a, int ac, float b, int bc) {
  const bool a_nan = a != a, b_nan = b != b;
  if (a_nan != b_nan) return b_nan;
  if (!a_nan && a != b) return a > b;
  return ac < bc;
}

}  // namespace sl
