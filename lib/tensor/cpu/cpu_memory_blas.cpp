#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tensor/caching_allocator.h"
#include "tensor/cpu/blas_library.h"
#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_threads.h"

namespace sl {

namespace {
// 64-byte alignment: one cache line, full AVX-512 vectors. Size classes are multiples of 64.
void* aligned_raw_alloc(size_t bytes) { return std::aligned_alloc(64, (bytes + 63) / 64 * 64); }

CachingAllocator& cpu_memory() {
  // Never destroyed: tensors held by statics may be released after it would be.
  static CachingAllocator* cache =
      new CachingAllocator(aligned_raw_alloc, std::free, "CPU aligned_alloc", size_t(1) << 30);
  return *cache;
}
}  // namespace

void* CpuDevice::alloc(size_t bytes) { return cpu_memory().allocate(bytes); }
void CpuDevice::release(void* p) { cpu_memory().release(p); }
void CpuDevice::to_host(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::from_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuDevice::copy(void* dst, const void* src, size_t bytes) { std::memmove(dst, src, bytes); }

namespace {
// C = A B^T + beta C for K == 1 (an outer product: both operands are vectors whatever the
// transposes), rows split over the kernel threads. OpenBLAS runs this memory-bound shape (the
// RNN attention's d energy = d score v^T) at a fraction of the bandwidth. With alpha 1 each
// element is the rounded product a_i b_j, then + C: the bits OpenBLAS's kernel produces
// (tests/tensor/gemm_kernel_test.cpp checks them against cblas_sgemm).
void outer_product(int M, int N, const float* a, const float* b, float beta, float* C) {
  cpu::parallel_for(M, cpu::row_grain(N), [=](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      float* __restrict c = C + i * N;
      const float ai = a[i];
      if (beta == 0.0f) {
        for (int j = 0; j < N; ++j) c[j] = ai * b[j];
      } else {
        for (int j = 0; j < N; ++j) c[j] = ai * b[j] + c[j];
      }
    }
  });
}
}  // namespace

void CpuDevice::gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                     const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  if (K == 1 && alpha == 1.0f && (beta == 0.0f || beta == 1.0f) &&
      M * static_cast<size_t>(N) >= cpu::kElementGrain) {
    outer_product(M, N, A, B, beta, C);
    return;
  }
  // Leading dimensions must be >= 1 even when K == 0 (then C = beta * C).
  blas::sgemm(ta, tb, M, N, K, alpha, A, std::max(1, ta ? M : K), B, std::max(1, tb ? K : N), beta,
              C, N);
}

namespace {
constexpr double kOpenBlasSerialMacs = 4.0 * 65536;  // interface/gemm.c: SMP_THRESHOLD_MIN x 4
constexpr double kBatchGrainMacs = 200000;           // ~20 us of work per chunk at least
}  // namespace

void CpuDevice::gemm_batched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                             int64_t sa, const float* B, int64_t sb, float beta, float* C,
                             int64_t sc, int batch) {
  // OpenBLAS runs a product this small on the calling thread alone (below its threading
  // threshold of 4 x 65536 multiply-adds), so the kernel threads share out the batch: each
  // item is the same single-threaded call as before, so the result does not change.
  const double macs = static_cast<double>(M) * N * K;
  const size_t grain =
      macs >= kOpenBlasSerialMacs
          ? static_cast<size_t>(batch)
          : std::max<size_t>(1, static_cast<size_t>(kBatchGrainMacs / std::max(macs, 1.0)));
  cpu::parallel_for(static_cast<size_t>(batch), grain, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i)
      gemm(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, beta, C + i * sc);
  });
}

void CpuDevice::gemm_grid(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                          MatrixGrid ga, const float* B, MatrixGrid gb, float beta, float* C,
                          MatrixGrid gc, int outer, int inner) {
  if (M == 0 || N == 0 || outer <= 0 || inner <= 0) return;
  // Threads share out the products as gemm_batched does; each is one single-threaded call.
  const double macs = static_cast<double>(M) * N * K;
  const size_t items = static_cast<size_t>(outer) * static_cast<size_t>(inner);
  const size_t grain =
      macs >= kOpenBlasSerialMacs
          ? items
          : std::max<size_t>(1, static_cast<size_t>(kBatchGrainMacs / std::max(macs, 1.0)));
  cpu::parallel_for(items, grain, [&](size_t lo, size_t hi) {
    for (size_t it = lo; it < hi; ++it) {
      const int64_t o = static_cast<int64_t>(it / static_cast<size_t>(inner));
      const int64_t i = static_cast<int64_t>(it % static_cast<size_t>(inner));
      blas::sgemm(ta, tb, M, N, K, alpha, A + o * ga.outer + i * ga.inner, std::max(1, ga.ld),
                  B + o * gb.outer + i * gb.inner, std::max(1, gb.ld), beta,
                  C + o * gc.outer + i * gc.inner, std::max(1, gc.ld));
    }
  });
}

Device& cpu_device() {
  static CpuDevice dev;
  return dev;
}

void set_blas_threads(int n) {
  blas::set_threads(n);
  cpu::set_kernel_threads(n);  // the kernels' own threads follow the same setting
}

}  // namespace sl
