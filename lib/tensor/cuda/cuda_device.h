#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "tensor/device.h"

struct cublasContext;  // cuBLAS's handle type, so this header needs no CUDA headers

namespace sl {

class CachingAllocator;

// CUDA backend: cuBLAS for GEMM (cuda_device.cpp), own kernels for the rest
// (cuda_elementwise.cu, cuda_layout.cu, cuda_reduce.cu, cuda_rows.cu), all on the legacy
// default stream of one GPU, so every call is ordered after the previous ones.
// Results are run-to-run deterministic: no atomics, fixed reduction trees whose shape
// depends only on the sizes. Errors (launch failures, out of memory, cuBLAS status) are
// thrown as std::runtime_error naming the call or kernel.
class CudaDevice final : public Device {
 public:
  // Binds GPU `ordinal` and creates the cuBLAS handle; throws std::runtime_error when that
  // fails. Use cuda_device_or_null() rather than constructing one.
  explicit CudaDevice(int ordinal);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const char* name() const override { return "cuda"; }
  bool is_cuda() const override { return true; }
  // "NVIDIA H200, sm_90, 132 SMs, 139 GiB" (for logs).
  const std::string& description() const { return description_; }
  // What decides the products' low-order bits here: the GPU (cuBLAS picks its GEMM algorithms
  // per model and SM count), the cuBLAS version and the math mode, e.g. "NVIDIA H100 80GB HBM3,
  // sm_90, 132 SMs, 79 GiB, cuBLAS 12.9.1" (+ ", TF32"). train/kernel_record compares it on resume.
  std::string kernels() const;

  // TF32 tensor-core GEMMs (about 10 bits of mantissa in the products): faster, not exact.
  // Off by default so results match the CPU backend to float rounding.
  void set_tf32(bool on);
  bool tf32() const { return tf32_; }

  // Caching allocator state; empty_cache() gives cached blocks back to the driver.
  size_t bytes_in_use() const;
  size_t bytes_cached() const;
  void empty_cache();
  struct AllocatorStats {
    size_t in_use, cached, cap;      // bytes; cap = cuda_cache_cap(free memory at creation)
    uint64_t raw_allocs, raw_frees;  // cudaMalloc / cudaFree calls so far
  };
  AllocatorStats allocator_stats() const;

  void* alloc(size_t bytes) override;
  void release(void* p) override;
  void to_host(void* host_dst, const void* src, size_t bytes) override;
  void from_host(void* dst, const void* host_src, size_t bytes) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  void synchronize() override;

  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
            const float* B, float beta, float* C) override;
  void gemm_batched(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                    int64_t stride_a, const float* B, int64_t stride_b, float beta, float* C,
                    int64_t stride_c, int batch) override;
  void gemm_grid(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                 MatrixGrid grid_a, const float* B, MatrixGrid grid_b, float beta, float* C,
                 MatrixGrid grid_c, int outer, int inner) override;

  void fill(size_t n, float value, float* y) override;
  void axpby(size_t n, float a, const float* x, float b, float* y) override;
  void mul(size_t n, const float* x1, const float* x2, float* y, bool accumulate) override;
  void add_bias(int rows, int cols, const float* x, const float* bias, float* y) override;
  void sum_rows_acc(int rows, int cols, const float* x, float* y) override;
  void mul_rows(int rows, int cols, const float* x, const float* m, float* y,
                bool accumulate) override;
  void unary(Unary op, size_t n, const float* x, float* y) override;
  void unary_backward(Unary op, size_t n, const float* x, const float* y, const float* dy,
                      float* dx) override;
  void reduce_sum(size_t n, const float* x, float* y, bool accumulate) override;
  void broadcast_scalar_acc(size_t n, float alpha, const float* dy, float* dx) override;
  double sum_squares(size_t n, const float* x) override;

  void copy_block(int rows, int width, const float* src, int64_t src_ld, float* dst,
                  int64_t dst_ld, bool accumulate) override;
  void permute4(const int dims[4], const int perm[4], const float* x, float* y,
                bool accumulate) override;
  void embedding(int n, int dim, const float* table, const int32_t* ids, float* y) override;
  void embedding_backward(int n, int dim, const float* dy, const int32_t* ids,
                          float* dtable) override;

  void softmax(int rows, int cols, const float* x, float* y) override;
  void softmax_backward(int rows, int cols, const float* y, const float* dy, float* dx) override;
  void log_softmax(int rows, int cols, const float* x, float* y) override;
  void log_softmax_backward(int rows, int cols, const float* y, const float* dy,
                            float* dx) override;
  void layer_norm(int rows, int cols, float eps, const float* x, const float* gamma,
                  const float* beta, float* y, float* mean, float* rstd) override;
  void layer_norm_backward(int rows, int cols, const float* x, const float* gamma,
                           const float* mean, const float* rstd, const float* dy, float* dx,
                           float* dgamma, float* dbeta) override;
  void attention_mask(int B, int H, int Tq, int Tk, const int32_t* key_lengths, bool causal,
                      float* scores) override;
  void length_mask(int B, int S, int offset, const int32_t* lengths, bool mean, float* y) override;
  void row_top_k(int rows, int cols, const float* x, const float* offsets, int k, float* values,
                 int32_t* indices) override;

  void dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream, float* mask) override;
  void cross_entropy(int R, int V, const float* logits, const int32_t* targets, int pad_id,
                     float smoothing, float* loss, float* probs) override;
  void cross_entropy_backward(int R, int V, const float* probs, const int32_t* targets,
                              int pad_id, float smoothing, const float* dloss,
                              float* dlogits) override;
  void gru_cell(int B, int H, const float* xw, const float* hu, const float* h_prev, float* h,
                float* cache) override;
  void gru_cell_backward(int B, int H, const float* h_prev, const float* cache, const float* dh,
                         float* dxw, float* dhu, float* dh_prev) override;
  void tanh_add_rows(int B, int S, int A, const float* keys, const float* q,
                     float* t) override;
  void tanh_add_rows_backward(int B, int S, int A, const float* t, const float* dscores,
                              const float* v, float* dkeys, bool accumulate_keys, float* dq,
                              bool accumulate_q) override;
  void adam_update(size_t n, float lr_t, float b1, float b2, float eps_t, const float* g,
                   float* m, float* v, float* p) override;

 private:
  void scale_matrix(int M, int N, float beta, float* C);

  std::unique_ptr<CachingAllocator> memory_;
  cublasContext* blas_ = nullptr;
  bool tf32_ = false;
  std::string description_;
  int cublas_version_ = 0;  // cublasGetVersion: major * 10000 + minor * 100 + patch
};

// The process-wide CUDA device (GPU 0 as CUDA_VISIBLE_DEVICES presents them), created on
// first use. nullptr when there is no usable GPU, with the reason in *reason (when given):
// no device or driver, cuBLAS could not start, or no kernel image for this GPU's arch.
// The answer is remembered; later calls are cheap.
Device* cuda_device_or_null(std::string* reason);

}  // namespace sl
