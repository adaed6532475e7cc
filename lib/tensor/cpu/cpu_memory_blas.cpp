#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "tensor/cpu/cpu_device.h"

namespace sl {

void* CpuDevice::alloc(size_t bytes) {
  // 64-byte alignment: one cache line, full AVX-512 vectors.
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}
void CpuDevice::release(void* p) { std::free(p); }
void CpuDevice::to_host(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::from_host(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void CpuDevice::copy(void* dst, const void* src, size_t bytes) { std::memmove(dst, src, bytes); }

void CpuDevice::gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                     const float* B, float beta, float* C) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
              K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}

void CpuDevice::gemm_batched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                             int64_t sa, const float* B, int64_t sb, float beta, float* C,
                             int64_t sc, int batch) {
  for (int i = 0; i < batch; ++i) gemm(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, beta, C + i * sc);
}

Device& cpu_device() {
  static CpuDevice dev;
  return dev;
}

void set_blas_threads(int n) { openblas_set_num_threads(n); }

}  // namespace sl
