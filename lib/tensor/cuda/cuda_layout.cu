// Layout kernels: block copies (concat/slice), 4-D permutes, embedding gather/scatter.
#include "tensor/cuda/cuda_check.h"
#include "tensor/cuda/cuda_device.h"
#include "tensor/cuda/cuda_kernel_util.cuh"
#include "tensor/cuda/permute4_plan.h"

namespace sl {

using cuda_detail::check_launch;
using cuda_detail::grid_for;
using cuda_detail::kThreads;

namespace {

__global__ void copy_block_kernel(size_t n, int width, const float* src, int64_t src_ld,
                                  float* dst, int64_t dst_ld, bool acc) {
  SL_GRID_STRIDE(i, n) {
    const int64_t r = int64_t(i / width), j = int64_t(i % width);
    const float v = src[r * src_ld + j];
    float& d = dst[r * dst_ld + j];
    d = acc ? d + v : v;
  }
}

// Walks y in order (coalesced writes) and gathers from x.
__global__ void permute4_kernel(Permute4Plan plan, const float* x, float* y, bool acc) {
  SL_GRID_STRIDE(i, size_t(plan.total)) {
    const float v = x[permute4_source(plan, int64_t(i))];
    y[i] = acc ? y[i] + v : v;
  }
}

__global__ void embedding_kernel(size_t n, int dim, const float* table, const int32_t* ids,
                                 float* y) {
  SL_GRID_STRIDE(i, n) y[i] = table[int64_t(ids[i / dim]) * dim + int64_t(i % dim)];
}

constexpr int kEmbedPerLane = 8;                    // dims a lane keeps in registers
constexpr int kEmbedChunk = 32 * kEmbedPerLane;     // dims one warp handles

// Deterministic scatter-add without atomics or sorting. One warp per (token i, chunk of
// 256 dims). The warp of the FIRST occurrence of ids[i] owns that table row: it scans the
// ids with ballots, adds dy of every occurrence j >= i in increasing j, and writes the row
// once; warps of later occurrences find an earlier equal id and leave. Each element thus
// gets dtable + dy[j0] + dy[j1] + ... in token order: the CPU loop's order, so the results
// match it bitwise. Cost: O(n / 32) ballots per warp (fine for the few thousand tokens of
// a batch) plus one dependent memory round trip per occurrence of an id, so a very
// frequent id (padding) is the slow case.
__global__ void embedding_backward_kernel(int n, int dim, const float* dy, const int32_t* ids,
                                          float* dtable) {
  const int64_t warp = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= n) return;  // warp-uniform
  const int i = int(warp);
  const int32_t id = ids[i];
  for (int j0 = 0; j0 < i; j0 += 32) {
    const int j = j0 + lane;
    if (__any_sync(0xffffffffu, j < i && ids[j] == id)) return;  // warp-uniform
  }
  const int d0 = blockIdx.y * kEmbedChunk + lane;
  float* row = dtable + int64_t(id) * dim;
  float acc[kEmbedPerLane];
#pragma unroll
  for (int k = 0; k < kEmbedPerLane; ++k) {
    const int d = d0 + 32 * k;
    acc[k] = d < dim ? row[d] : 0.0f;
  }
  for (int j0 = i; j0 < n; j0 += 32) {
    const int j = j0 + lane;
    unsigned hits = __ballot_sync(0xffffffffu, j < n && ids[j] == id);
    while (hits) {
      const int jj = j0 + __ffs(hits) - 1;
      hits &= hits - 1;
      const float* src = dy + int64_t(jj) * dim;
#pragma unroll
      for (int k = 0; k < kEmbedPerLane; ++k) {
        const int d = d0 + 32 * k;
        if (d < dim) acc[k] += src[d];
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kEmbedPerLane; ++k) {
    const int d = d0 + 32 * k;
    if (d < dim) row[d] = acc[k];
  }
}

}  // namespace

void CudaDevice::copy_block(int rows, int width, const float* src, int64_t src_ld, float* dst,
                            int64_t dst_ld, bool accumulate) {
  const size_t n = size_t(rows) * width;
  if (!n) return;
  copy_block_kernel<<<grid_for(n), kThreads>>>(n, width, src, src_ld, dst, dst_ld, accumulate);
  check_launch("copy_block");
}

void CudaDevice::permute4(const int dims[4], const int perm[4], const float* x, float* y,
                          bool accumulate) {
  const Permute4Plan plan = make_permute4_plan(dims, perm);
  if (plan.total <= 0) return;
  permute4_kernel<<<grid_for(size_t(plan.total)), kThreads>>>(plan, x, y, accumulate);
  check_launch("permute4");
}

void CudaDevice::embedding(int n, int dim, const float* table, const int32_t* ids, float* y) {
  const size_t total = size_t(n) * dim;
  if (!total) return;
  embedding_kernel<<<grid_for(total), kThreads>>>(total, dim, table, ids, y);
  check_launch("embedding");
}

void CudaDevice::embedding_backward(int n, int dim, const float* dy, const int32_t* ids,
                                    float* dtable) {
  if (n <= 0 || dim <= 0) return;
  const int warps_per_block = kThreads / 32;
  const dim3 grid((n + warps_per_block - 1) / warps_per_block, (dim + kEmbedChunk - 1) / kEmbedChunk);
  embedding_backward_kernel<<<grid, kThreads>>>(n, dim, dy, ids, dtable);
  check_launch("embedding_backward");
}

}  // namespace sl
