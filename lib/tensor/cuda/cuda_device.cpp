// CudaDevice: creation, memory, cuBLAS GEMMs. Host code only (compiled as C++).
#include "tensor/cuda/cuda_device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

#include "tensor/cuda/cublas_gemm_params.h"
#include "tensor/cuda/cuda_allocator.h"
#include "tensor/cuda/cuda_check.h"

namespace sl {

using cuda_detail::check_cuda;

namespace {

void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS ") + what + " failed: " + cublasGetStatusName(s) +
                             " (" + cublasGetStatusString(s) + ")");
}

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

CudaDevice::CudaDevice(int ordinal) {
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice");
  size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  memory_ = make_cuda_caching_allocator(cuda_cache_cap(free_bytes));
  cudaDeviceProp prop;
  check_cuda(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
  description_ = std::string(prop.name) + ", sm_" + std::to_string(prop.major) +
                 std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) +
                 " SMs, " + std::to_string(prop.totalGlobalMem >> 30) + " GiB";
  std::string why;
  if (!cuda_detail::kernels_loadable(&why)) throw std::runtime_error(why + " on " + description_);
  check_blas(cublasCreate(&blas_), "cublasCreate");
  check_blas(cublasGetVersion(blas_, &cublas_version_), "cublasGetVersion");
  set_tf32(false);
}

std::string CudaDevice::kernels() const {
  const int v = cublas_version_;
  return description_ + ", cuBLAS " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100) + (tf32_ ? ", TF32" : "");
}

CudaDevice::~CudaDevice() {
  if (blas_) cublasDestroy(blas_);
}

void CudaDevice::set_tf32(bool on) {
  check_blas(cublasSetMathMode(blas_, on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
             "cublasSetMathMode");
  tf32_ = on;
}

size_t CudaDevice::bytes_in_use() const { return memory_->bytes_in_use(); }
size_t CudaDevice::bytes_cached() const { return memory_->bytes_cached(); }
CudaDevice::AllocatorStats CudaDevice::allocator_stats() const {
  return {memory_->bytes_in_use(), memory_->bytes_cached(), memory_->max_cached_bytes(),
          memory_->raw_allocations(), memory_->raw_frees()};
}
void CudaDevice::empty_cache() { memory_->empty_cache(); }

void* CudaDevice::alloc(size_t bytes) { return memory_->allocate(bytes); }
void CudaDevice::release(void* p) { memory_->release(p); }

void CudaDevice::to_host(void* host_dst, const void* src, size_t bytes) {
  if (bytes) check_cuda(cudaMemcpy(host_dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

void CudaDevice::from_host(void* dst, const void* host_src, size_t bytes) {
  if (bytes) check_cuda(cudaMemcpy(dst, host_src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy from host");
}

void CudaDevice::copy(void* dst, const void* src, size_t bytes) {
  if (!bytes || dst == src) return;
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (d < s + bytes && s < d + bytes) {
    // cudaMemcpy leaves overlapping ranges undefined; the CPU backend's memmove allows them.
    cuda_detail::Scratch tmp(*this, bytes);
    check_cuda(cudaMemcpy(tmp.as<void>(), src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    src = tmp.as<void>();
    check_cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    return;
  }
  check_cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
}

void CudaDevice::synchronize() { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// C = beta * C, what a GEMM with K == 0 means (BLAS: beta == 0 overwrites, even NaN). Done
// here rather than trusting each cuBLAS version's handling of empty products.
void CudaDevice::scale_matrix(int M, int N, float beta, float* C) {
  const size_t n = size_t(M) * N;
  if (beta == 0.0f)
    fill(n, 0.0f, C);
  else if (beta != 1.0f)
    axpby(n, beta, C, 0.0f, C);
}

void CudaDevice::gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                      const float* B, float beta, float* C) {
  if (M <= 0 || N <= 0) return;
  if (K == 0) return scale_matrix(M, N, beta, C);
  const CublasGemmParams p = cublas_gemm_params(ta, tb, M, N, K);
  check_blas(cublasSgemm(blas_, op(p.trans_first), op(p.trans_second), p.m, p.n, p.k, &alpha, B,
                         p.ld_first, A, p.ld_second, &beta, C, p.ldc),
             "cublasSgemm");
}

void CudaDevice::gemm_batched(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                              int64_t stride_a, const float* B, int64_t stride_b, float beta,
                              float* C, int64_t stride_c, int batch) {
  if (M <= 0 || N <= 0 || batch <= 0) return;
  if (K == 0) {
    for (int i = 0; i < batch; ++i) scale_matrix(M, N, beta, C + i * stride_c);
    return;
  }
  const CublasGemmParams p = cublas_gemm_params(ta, tb, M, N, K, stride_a, stride_b);
  check_blas(cublasSgemmStridedBatched(blas_, op(p.trans_first), op(p.trans_second), p.m, p.n,
                                       p.k, &alpha, B, p.ld_first, p.stride_first, A,
                                       p.ld_second, p.stride_second, &beta, C, p.ldc, stride_c,
                                       batch),
             "cublasSgemmStridedBatched");
}

void CudaDevice::gemm_grid(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                           MatrixGrid ga, const float* B, MatrixGrid gb, float beta, float* C,
                           MatrixGrid gc, int outer, int inner) {
  if (M <= 0 || N <= 0 || outer <= 0 || inner <= 0) return;
  if (K == 0) {  // C = beta C, row by row (the rows of a grid matrix are not contiguous)
    for (int o = 0; o < outer; ++o)
      for (int i = 0; i < inner; ++i)
        for (int r = 0; r < M; ++r)
          scale_matrix(1, N, beta, C + o * gc.outer + i * gc.inner + int64_t(r) * gc.ld);
    return;
  }
  CublasGemmParams p = cublas_gemm_params(ta, tb, M, N, K, ga.inner, gb.inner);
  p.ld_first = std::max(1, gb.ld);
  p.ld_second = std::max(1, ga.ld);
  p.ldc = std::max(1, gc.ld);
  // One strided-batched call per outer index: the inner index is a single stride.
  for (int o = 0; o < outer; ++o)
    check_blas(cublasSgemmStridedBatched(blas_, op(p.trans_first), op(p.trans_second), p.m, p.n,
                                         p.k, &alpha, B + o * gb.outer, p.ld_first,
                                         p.stride_first, A + o * ga.outer, p.ld_second,
                                         p.stride_second, &beta, C + o * gc.outer, p.ldc,
                                         gc.inner, inner),
               "cublasSgemmStridedBatched");
}

Device* cuda_device_or_null(std::string* reason) {
  static std::mutex mu;
  static bool tried = false;
  static CudaDevice* device = nullptr;  // never destroyed: outlives every static Tensor
  static std::string why;
  std::lock_guard<std::mutex> lock(mu);
  if (!tried) {
    tried = true;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      cudaGetLastError();
      why = "no CUDA device: cudaGetDeviceCount returned " + cuda_detail::cuda_error_text(e);
    } else if (count == 0) {
      why = "no CUDA device: cudaGetDeviceCount found 0 devices";
    } else {
      try {
        device = new CudaDevice(0);
      } catch (const std::exception& ex) {
        cudaGetLastError();
        why = std::string("CUDA device 0 is not usable: ") + ex.what();
      }
    }
  }
  if (!device && reason) *reason = why;
  return device;
}

}  // namespace sl
