#pragma once
#include <cstdint>

#include "common/counter_rng.h"  // SL_HOST_DEVICE

namespace sl {

// Index mapping for y = x.permute(perm) on 4-D tensors: y's dim i is x's dim perm[i].
// The kernel walks y linearly (coalesced writes) and gathers from x; the same function
// runs on the host in tests, so the mapping is verified without a GPU.
struct Permute4Plan {
  int64_t y_dims[4];           // y's dims: dims[perm[i]]
  int64_t x_stride_of_y[4];    // stride in x of y's dim i: x_strides[perm[i]]
  int64_t total;               // element count
};

inline Permute4Plan make_permute4_plan(const int dims[4], const int perm[4]) {
  int64_t x_strides[4];
  x_strides[3] = 1;
  for (int i = 2; i >= 0; --i) x_strides[i] = x_strides[i + 1] * dims[i + 1];
  Permute4Plan p;
  p.total = 1;
  for (int i = 0; i < 4; ++i) {
    p.y_dims[i] = dims[perm[i]];
    p.x_stride_of_y[i] = x_strides[perm[i]];
    p.total *= dims[i];
  }
  return p;
}

// Offset in x of the element that lands at linear offset `y_index` of y.
SL_HOST_DEVICE inline int64_t permute4_source(const Permute4Plan& p, int64_t y_index) {
  int64_t src = 0;
  for (int i = 3; i >= 0; --i) {
    const int64_t c = y_index % p.y_dims[i];
    y_index /= p.y_dims[i];
    src += c * p.x_stride_of_y[i];
  }
  return src;
}

}  // namespace sl
