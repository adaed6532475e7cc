#pragma once
// Device-side helpers of the backend's kernels (only .cu files include this).
#include <cuda_runtime.h>
#include <math.h>

// for (size_t i ...) over [0, n) with a grid of any size.
#define SL_GRID_STRIDE(i, n)                                                   \
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < (n); \
       i += size_t(gridDim.x) * blockDim.x)

namespace sl {
namespace cuda_detail {

// Reductions: butterfly (xor) shuffles give every lane the same bits (IEEE addition is
// commutative), and the shape of the tree depends only on blockDim, so a reduction never
// depends on timing.
constexpr unsigned kFullMask = 0xffffffffu;

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, o));
  return v;
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024), returned to every thread.
// `smem` holds 32 values; the leading barrier lets calls reuse it back to back.
template <typename T>
__device__ __forceinline__ T block_sum(T v, T* smem) {
  v = warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  return warp_sum(lane < (blockDim.x >> 5) ? smem[lane] : T(0));
}

__device__ __forceinline__ float block_max(float v, float* smem) {
  v = warp_max(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  return warp_max(lane < (blockDim.x >> 5) ? smem[lane] : -INFINITY);
}

}  // namespace cuda_detail
}  // namespace sl
