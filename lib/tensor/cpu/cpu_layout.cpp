// Layout kernels of the CPU backend: strided block copies (concat/slice), 4-D permutes and
// embedding gather / scatter-add.
// clang-format off (must stay the first include)
#include "tensor/cpu/cpu_vectorize.h"  // first: sets the vectorisation options
// clang-format on
#include <cstring>
#include <stdexcept>
#include <string>

#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_threads.h"

namespace sl {

void CpuDevice::copy_block(int rows, int width, const float* __restrict src, int64_t src_ld,
                           float* __restrict dst, int64_t dst_ld, bool accumulate) {
  cpu::parallel_for(rows, cpu::row_grain(width), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const float* __restrict s = src + r * src_ld;
      float* __restrict d = dst + r * dst_ld;
      if (accumulate) {
        for (int j = 0; j < width; ++j) d[j] += s[j];
      } else {
        std::memcpy(d, s, static_cast<size_t>(width) * sizeof(float));
      }
    }
  });
}

void CpuDevice::permute4(const int dims[4], const int perm[4], const float* __restrict x,
                         float* __restrict y, bool accumulate) {
  int64_t xs[4];  // x's strides
  xs[3] = 1;
  for (int i = 2; i >= 0; --i) xs[i] = xs[i + 1] * dims[i + 1];
  const int d0 = dims[perm[0]], d1 = dims[perm[1]], d2 = dims[perm[2]], d3 = dims[perm[3]];
  const int64_t s0 = xs[perm[0]], s1 = xs[perm[1]], s2 = xs[perm[2]], s3 = xs[perm[3]];
  // y is written contiguously; the innermost read is contiguous when perm[3] == 3 (the
  // attention head split/merge), strided otherwise. Threads split y's outer two dimensions.
  const size_t outer = static_cast<size_t>(d0) * d1;
  cpu::parallel_for(outer, cpu::row_grain(static_cast<size_t>(d2) * d3), [=](size_t lo, size_t hi) {
    for (size_t o = lo; o < hi; ++o) {
      const int64_t i0 = static_cast<int64_t>(o / d1), i1 = static_cast<int64_t>(o % d1);
      float* __restrict out = y + o * d2 * d3;
      for (int i2 = 0; i2 < d2; ++i2) {
        const float* __restrict in = x + i0 * s0 + i1 * s1 + i2 * s2;
        if (s3 == 1) {
          if (accumulate)
            for (int i3 = 0; i3 < d3; ++i3) out[i3] += in[i3];
          else
            for (int i3 = 0; i3 < d3; ++i3) out[i3] = in[i3];
        } else {
          if (accumulate)
            for (int i3 = 0; i3 < d3; ++i3) out[i3] += in[i3 * s3];
          else
            for (int i3 = 0; i3 < d3; ++i3) out[i3] = in[i3 * s3];
        }
        out += d3;
      }
    }
  });
}

void CpuDevice::embedding(int n, int dim, const float* __restrict table,
                          const int32_t* __restrict ids, float* __restrict y) {
  for (int i = 0; i < n; ++i)
    std::memcpy(y + static_cast<size_t>(i) * dim, table + static_cast<size_t>(ids[i]) * dim,
                static_cast<size_t>(dim) * sizeof(float));
}

void CpuDevice::embedding_backward(int n, int dim, const float* __restrict dy,
                                   const int32_t* __restrict ids, float* __restrict dtable) {
  // In index order, so repeated ids sum in the same order on every run.
  for (int i = 0; i < n; ++i) {
    float* __restrict d = dtable + static_cast<size_t>(ids[i]) * dim;
    const float* __restrict s = dy + static_cast<size_t>(i) * dim;
    for (int j = 0; j < dim; ++j) d[j] += s[j];
  }
}

}  // namespace sl
