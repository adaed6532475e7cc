// Device-resident gradient dropping: see sparsify.h and sparsify_plan.h (the algorithm and
// its index arithmetic). Deterministic: integer histograms (atomic adds of counts commute),
// fixed scans, one writer per output element.
#include <cuda_runtime.h>

#include <stdexcept>
#include <vector>

#include "tensor/cuda/cuda_check.h"
#include "tensor/cuda/cuda_kernel_util.cuh"
#include "tensor/cuda/sparsify.h"

namespace sl {
namespace sparsify {

using cuda_detail::check_cuda;
using cuda_detail::check_launch;
using cuda_detail::grid_for;
using cuda_detail::kThreads;
using cuda_detail::Scratch;

namespace {

__global__ void compensate_kernel(uint64_t P, const float* g, float* E) {
  SL_GRID_STRIDE(i, P) E[i] = g[i] + E[i];
}

__global__ void gather_sample_kernel(uint64_t P, uint64_t m, const float* A, float* out) {
  SL_GRID_STRIDE(j, m) out[j] = A[sample_position(j, P, m)];
}

__global__ void radix_hist_kernel(uint64_t n, const float* x, int pass, uint32_t prefix,
                                  uint32_t* hist) {
  __shared__ uint32_t h[kRadixBins];
  for (int b = threadIdx.x; b < kRadixBins; b += blockDim.x) h[b] = 0;
  __syncthreads();
  SL_GRID_STRIDE(i, n) {
    const uint32_t key = abs_key(x[i]);
    if (radix_in_prefix(key, prefix, pass)) atomicAdd(&h[radix_digit(key, pass)], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < int(radix_bins(pass)); b += blockDim.x)
    if (h[b]) atomicAdd(&hist[b], h[b]);
}

// Selected elements of thread t's kPerThread consecutive ones.
__device__ __forceinline__ uint32_t thread_selected(const float* A, uint64_t P, uint64_t b,
                                                    uint32_t tau_key) {
  const uint64_t i0 = tile_thread_begin(b, threadIdx.x);
  uint32_t c = 0;
#pragma unroll
  for (int u = 0; u < kPerThread; ++u)
    c += (i0 + u < P && abs_key(A[i0 + u]) >= tau_key) ? 1u : 0u;
  return c;
}

__global__ void tile_count_kernel(uint64_t P, const float* A, uint32_t tau_key,
                                  uint32_t* counts) {
  __shared__ uint32_t smem[32];
  const uint32_t c = thread_selected(A, P, blockIdx.x, tau_key);
  const uint32_t total = cuda_detail::block_sum(c, smem);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// One block of kScanThreads: offsets[b] = sum of counts[0 .. b), total[0] = sum of all.
__global__ void tile_scan_kernel(uint64_t tiles, const uint32_t* counts, uint64_t* offsets,
                                 uint64_t* total) {
  __shared__ uint64_t sums[kScanThreads];
  const uint64_t lo = scan_chunk(tiles, kScanThreads, threadIdx.x);
  const uint64_t hi = scan_chunk(tiles, kScanThreads, threadIdx.x + 1);
  uint64_t s = 0;
  for (uint64_t b = lo; b < hi; ++b) s += counts[b];
  sums[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t run = 0;
    for (int t = 0; t < kScanThreads; ++t) {
      const uint64_t v = sums[t];
      sums[t] = run;
      run += v;
    }
    total[0] = run;
  }
  __syncthreads();
  uint64_t run = sums[threadIdx.x];
  for (uint64_t b = lo; b < hi; ++b) {
    offsets[b] = run;
    run += counts[b];
  }
}

__global__ void compact_kernel(uint64_t P, float* A, uint32_t tau_key, const uint64_t* offsets,
                               DevicePair* pairs) {
  __shared__ uint32_t before[kTileThreads];
  const uint64_t b = blockIdx.x;
  before[threadIdx.x] = thread_selected(A, P, b, tau_key);
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t run = 0;
    for (int t = 0; t < kTileThreads; ++t) {
      const uint32_t v = before[t];
      before[t] = run;
      run += v;
    }
  }
  __syncthreads();
  uint64_t slot = offsets[b] + before[threadIdx.x];
  const uint64_t i0 = tile_thread_begin(b, threadIdx.x);
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const uint64_t i = i0 + u;
    if (i < P) {
      const float a = A[i];
      if (abs_key(a) >= tau_key) {
        pairs[slot++] = DevicePair{uint32_t(i), a};
        A[i] = 0.0f;
      }
    }
  }
}

__global__ void scatter_add_kernel(uint64_t n, const DevicePair* pairs, float sign, float* G) {
  SL_GRID_STRIDE(j, n) {
    const DevicePair p = pairs[j];
    G[p.index] = sign > 0.0f ? G[p.index] + p.value : G[p.index] - p.value;
  }
}

// The k-th largest abs_key among x[0 .. n).
uint32_t kth_largest_key(Device& dev, const float* x, uint64_t n, uint64_t k) {
  Scratch hist(dev, kRadixBins * sizeof(uint32_t));
  std::vector<uint32_t> h(kRadixBins);
  uint32_t prefix = 0;
  uint64_t rank = k;
  for (int pass = 0; pass < kRadixPasses; ++pass) {
    check_cuda(cudaMemset(hist.as<uint32_t>(), 0, kRadixBins * sizeof(uint32_t)), "cudaMemset");
    radix_hist_kernel<<<grid_for(n), kThreads>>>(n, x, pass, prefix, hist.as<uint32_t>());
    check_launch("sparsify radix_hist");
    dev.to_host(h.data(), hist.as<uint32_t>(), radix_bins(pass) * sizeof(uint32_t));
    prefix |= radix_pick(h.data(), pass, &rank) << radix_shift(pass);
  }
  return prefix;
}

}  // namespace

DeviceSelection compress(Device& dev, const float* g, float* E, uint64_t P, uint64_t k,
                         uint64_t sample_size, DevicePair* pairs) {
  DeviceSelection r;
  if (P == 0) return r;
  if (P > (uint64_t(1) << 32)) throw std::length_error("sparsify::compress: P exceeds 32-bit indices");
  compensate_kernel<<<grid_for(P), kThreads>>>(P, g, E);
  check_launch("sparsify compensate");
  if (sample_size == 0 || sample_size >= P) {
    if (k < 1 || k > P) throw std::invalid_argument("sparsify::compress: k outside [1, P]");
    r.tau_key = kth_largest_key(dev, E, P, k);
  } else {
    if (k < 1 || k > sample_size) throw std::invalid_argument("sparsify::compress: k outside [1, m]");
    Scratch sample(dev, sample_size * sizeof(float));
    gather_sample_kernel<<<grid_for(sample_size), kThreads>>>(P, sample_size, E, sample.as<float>());
    check_launch("sparsify gather_sample");
    r.tau_key = kth_largest_key(dev, sample.as<float>(), sample_size, k);
  }
  const uint64_t tiles = tile_count(P);
  Scratch counts(dev, tiles * sizeof(uint32_t));
  Scratch offsets(dev, (tiles + 1) * sizeof(uint64_t));
  uint64_t* total = offsets.as<uint64_t>() + tiles;
  tile_count_kernel<<<unsigned(tiles), kTileThreads>>>(P, E, r.tau_key, counts.as<uint32_t>());
  check_launch("sparsify tile_count");
  tile_scan_kernel<<<1, kScanThreads>>>(tiles, counts.as<uint32_t>(), offsets.as<uint64_t>(), total);
  check_launch("sparsify tile_scan");
  compact_kernel<<<unsigned(tiles), kTileThreads>>>(P, E, r.tau_key, offsets.as<uint64_t>(), pairs);
  check_launch("sparsify compact");
  dev.to_host(&r.k_selected, total, sizeof(uint64_t));
  return r;
}

void scatter_add(Device& dev, const DevicePair* pairs, uint64_t n, float sign, float* G) {
  (void)dev;
  if (!n) return;
  scatter_add_kernel<<<grid_for(n), kThreads>>>(n, pairs, sign, G);
  check_launch("sparsify scatter_add");
}

}  // namespace sparsify
}  // namespace sl
