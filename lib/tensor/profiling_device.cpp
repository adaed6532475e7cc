#include "tensor/profiling_device.h"

#include <type_traits>

#include "common/timer.h"

namespace sl {

const char* ProfilingDevice::category_name(Category c) {
  static const char* names[kCategoryCount] = {"GEMM (linear layers, output)",
                                              "batched GEMM (attention)",
                                              "softmax+cross-entropy (vocab)",
                                              "log-softmax",
                                              "attention softmax + mask",
                                              "layer norm",
                                              "element-wise + dropout",
                                              "layout (concat/slice/permute)",
                                              "GRU cell",
                                              "additive attention hidden",
                                              "embedding",
                                              "Adam",
                                              "norms (clip, checks)",
                                              "memory (alloc, host copies)"};
  return names[c];
}

void ProfilingDevice::reset() {
  buckets_ = {};
  kernels_.clear();
  gemm_flops_ = 0;
}

template <class F>
auto ProfilingDevice::timed(Category c, const char* kernel, F&& f) -> decltype(f()) {
  // The booking happens on the normal path only, never in a destructor: on CUDA it first waits
  // for the kernel (synchronize), which can throw -- from a destructor that would be
  // std::terminate, and during unwinding of an exception from f() too. A call that throws
  // is not booked; its exception (or the synchronize's) reaches the caller.
  const double t0 = now();
  auto book = [&] {
    if (inner_.is_cuda()) inner_.synchronize();
    const double dt = now() - t0;
    buckets_[c].seconds += dt;
    ++buckets_[c].calls;
    Bucket& k = kernels_[kernel];
    k.seconds += dt;
    ++k.calls;
  };
  if constexpr (std::is_void_v<decltype(f())>) {
    f();
    book();
  } else {
    auto result = f();
    book();
    return result;
  }
}

void* ProfilingDevice::alloc(size_t bytes) {
  return timed(kMemory, "alloc", [&] { return inner_.alloc(bytes); });
}

void ProfilingDevice::release(void* p) {
  timed(kMemory, "release", [&] { inner_.release(p); });
}

void ProfilingDevice::to_host(void* host_dst, const void* src, size_t bytes) {
  timed(kMemory, "to_host", [&] { inner_.to_host(host_dst, src, bytes); });
}

void ProfilingDevice::from_host(void* dst, const void* host_src, size_t bytes) {
  timed(kMemory, "from_host", [&] { inner_.from_host(dst, host_src, bytes); });
}

void ProfilingDevice::copy(void* dst, const void* src, size_t bytes) {
  timed(kLayout, "copy", [&] { inner_.copy(dst, src, bytes); });
}

void ProfilingDevice::gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                           const float* A, const float* B, float beta, float* C) {
  gemm_flops_ += 2.0 * M * N * K;
  const std::string name = gemm_shapes_ ? "gemm " + std::string(trans_a ? "T" : "N") +
                                              (trans_b ? "T " : "N ") + std::to_string(M) + "x" +
                                              std::to_string(N) + "x" + std::to_string(K)
                                        : "gemm";
  timed(kGemm, name.c_str(), [&] { inner_.gemm(trans_a, trans_b, M, N, K, alpha, A, B, beta, C); });
}

void ProfilingDevice::gemm_batched(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                                   const float* A, int64_t stride_a, const float* B,
                                   int64_t stride_b, float beta, float* C, int64_t stride_c,
                                   int batch) {
  gemm_flops_ += 2.0 * M * N * K * batch;
  timed(kBatchedGemm, "gemm_batched", [&] {
    inner_.gemm_batched(trans_a, trans_b, M, N, K, alpha, A, stride_a, B, stride_b, beta, C,
                        stride_c, batch);
  });
}

void ProfilingDevice::gemm_grid(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                                const float* A, MatrixGrid grid_a, const float* B,
                                MatrixGrid grid_b, float beta, float* C, MatrixGrid grid_c,
                                int outer, int inner) {
  gemm_flops_ += 2.0 * M * N * K * outer * inner;
  timed(kBatchedGemm, "gemm_grid", [&] {
    inner_.gemm_grid(trans_a, trans_b, M, N, K, alpha, A, grid_a, B, grid_b, beta, C, grid_c,
                     outer, inner);
  });
}

void ProfilingDevice::fill(size_t n, float value, float* y) {
  timed(kElementwise, "fill", [&] { inner_.fill(n, value, y); });
}

void ProfilingDevice::axpby(size_t n, float a, const float* x, float b, float* y) {
  timed(kElementwise, "axpby", [&] { inner_.axpby(n, a, x, b, y); });
}

void ProfilingDevice::mul(size_t n, const float* x1, const float* x2, float* y, bool accumulate) {
  timed(kElementwise, "mul", [&] { inner_.mul(n, x1, x2, y, accumulate); });
}

void ProfilingDevice::add_bias(int rows, int cols, const float* x, const float* bias, float* y) {
  timed(kElementwise, "add_bias", [&] { inner_.add_bias(rows, cols, x, bias, y); });
}

void ProfilingDevice::sum_rows_acc(int rows, int cols, const float* x, float* y) {
  timed(kElementwise, "sum_rows_acc", [&] { inner_.sum_rows_acc(rows, cols, x, y); });
}

void ProfilingDevice::mul_rows(int rows, int cols, const float* x, const float* m, float* y,
                               bool accumulate) {
  timed(kElementwise, "mul_rows", [&] { inner_.mul_rows(rows, cols, x, m, y, accumulate); });
}

void ProfilingDevice::unary(Unary op, size_t n, const float* x, float* y) {
  timed(kElementwise, "unary", [&] { inner_.unary(op, n, x, y); });
}

void ProfilingDevice::unary_backward(Unary op, size_t n, const float* x, const float* y,
                                     const float* dy, float* dx) {
  timed(kElementwise, "unary_backward", [&] { inner_.unary_backward(op, n, x, y, dy, dx); });
}

void ProfilingDevice::reduce_sum(size_t n, const float* x, float* y, bool accumulate) {
  timed(kElementwise, "reduce_sum", [&] { inner_.reduce_sum(n, x, y, accumulate); });
}

void ProfilingDevice::broadcast_scalar_acc(size_t n, float alpha, const float* dy, float* dx) {
  timed(kElementwise, "broadcast_scalar_acc",
        [&] { inner_.broadcast_scalar_acc(n, alpha, dy, dx); });
}

double ProfilingDevice::sum_squares(size_t n, const float* x) {
  return timed(kNorm, "sum_squares", [&] { return inner_.sum_squares(n, x); });
}

void ProfilingDevice::copy_block(int rows, int width, const float* src, int64_t src_ld, float* dst,
                                 int64_t dst_ld, bool accumulate) {
  timed(kLayout, "copy_block",
        [&] { inner_.copy_block(rows, width, src, src_ld, dst, dst_ld, accumulate); });
}

void ProfilingDevice::permute4(const int dims[4], const int perm[4], const float* x, float* y,
                               bool accumulate) {
  timed(kLayout, "permute4", [&] { inner_.permute4(dims, perm, x, y, accumulate); });
}

void ProfilingDevice::embedding(int n, int dim, const float* table, const int32_t* ids, float* y) {
  timed(kEmbedding, "embedding", [&] { inner_.embedding(n, dim, table, ids, y); });
}

void ProfilingDevice::embedding_backward(int n, int dim, const float* dy, const int32_t* ids,
                                         float* dtable) {
  timed(kEmbedding, "embedding_backward",
        [&] { inner_.embedding_backward(n, dim, dy, ids, dtable); });
}

void ProfilingDevice::softmax(int rows, int cols, const float* x, float* y) {
  timed(kSoftmaxMask, "softmax", [&] { inner_.softmax(rows, cols, x, y); });
}

void ProfilingDevice::softmax_backward(int rows, int cols, const float* y, const float* dy,
                                       float* dx) {
  timed(kSoftmaxMask, "softmax_backward", [&] { inner_.softmax_backward(rows, cols, y, dy, dx); });
}

void ProfilingDevice::log_softmax(int rows, int cols, const float* x, float* y) {
  timed(kLogSoftmax, "log_softmax", [&] { inner_.log_softmax(rows, cols, x, y); });
}

void ProfilingDevice::log_softmax_backward(int rows, int cols, const float* y, const float* dy,
                                           float* dx) {
  timed(kLogSoftmax, "log_softmax_backward",
        [&] { inner_.log_softmax_backward(rows, cols, y, dy, dx); });
}

void ProfilingDevice::layer_norm(int rows, int cols, float eps, const float* x, const float* gamma,
                                 const float* beta, float* y, float* mean, float* rstd) {
  timed(kLayerNorm, "layer_norm",
        [&] { inner_.layer_norm(rows, cols, eps, x, gamma, beta, y, mean, rstd); });
}

void ProfilingDevice::layer_norm_backward(int rows, int cols, const float* x, const float* gamma,
                                          const float* mean, const float* rstd, const float* dy,
                                          float* dx, float* dgamma, float* dbeta) {
  timed(kLayerNorm, "layer_norm_backward", [&] {
    inner_.layer_norm_backward(rows, cols, x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
  });
}

void ProfilingDevice::length_mask(int B, int S, int offset, const int32_t* lengths, bool mean,
                                  float* y) {
  timed(kSoftmaxMask, "length_mask", [&] { inner_.length_mask(B, S, offset, lengths, mean, y); });
}

void ProfilingDevice::row_top_k(int rows, int cols, const float* x, const float* offsets, int k,
                                float* values, int32_t* indices) {
  timed(kLogSoftmax, "row_top_k",
        [&] { inner_.row_top_k(rows, cols, x, offsets, k, values, indices); });
}

void ProfilingDevice::attention_mask(int B, int H, int Tq, int Tk, const int32_t* key_lengths,
                                     bool causal, float* scores) {
  timed(kSoftmaxMask, "attention_mask",
        [&] { inner_.attention_mask(B, H, Tq, Tk, key_lengths, causal, scores); });
}

void ProfilingDevice::dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream, float* mask) {
  timed(kElementwise, "dropout_mask", [&] { inner_.dropout_mask(n, p, seed, stream, mask); });
}

void ProfilingDevice::cross_entropy(int R, int V, const float* logits, const int32_t* targets,
                                    int pad_id, float smoothing, float* loss, float* probs) {
  timed(kCrossEntropy, "cross_entropy",
        [&] { inner_.cross_entropy(R, V, logits, targets, pad_id, smoothing, loss, probs); });
}

void ProfilingDevice::cross_entropy_backward(int R, int V, const float* probs,
                                             const int32_t* targets, int pad_id, float smoothing,
                                             const float* dloss, float* dlogits) {
  timed(kCrossEntropy, "cross_entropy_backward", [&] {
    inner_.cross_entropy_backward(R, V, probs, targets, pad_id, smoothing, dloss, dlogits);
  });
}

void ProfilingDevice::gru_cell(int B, int H, const float* xw, const float* hu, const float* h_prev,
                               float* h, float* cache) {
  timed(kGruCell, "gru_cell", [&] { inner_.gru_cell(B, H, xw, hu, h_prev, h, cache); });
}

void ProfilingDevice::gru_cell_backward(int B, int H, const float* h_prev, const float* cache,
                                        const float* dh, float* dxw, float* dhu, float* dh_prev) {
  timed(kGruCell, "gru_cell_backward",
        [&] { inner_.gru_cell_backward(B, H, h_prev, cache, dh, dxw, dhu, dh_prev); });
}

void ProfilingDevice::tanh_add_rows(int B, int S, int A, const float* keys, const float* q,
                                    float* t) {
  timed(kAttentionHidden, "tanh_add_rows", [&] { inner_.tanh_add_rows(B, S, A, keys, q, t); });
}

void ProfilingDevice::tanh_add_rows_backward(int B, int S, int A, const float* t,
                                             const float* dscores, const float* v, float* dkeys,
                                             bool accumulate_keys, float* dq, bool accumulate_q) {
  timed(kAttentionHidden, "tanh_add_rows_backward", [&] {
    inner_.tanh_add_rows_backward(B, S, A, t, dscores, v, dkeys, accumulate_keys, dq,
                                  accumulate_q);
  });
}

void ProfilingDevice::adam_update(size_t n, float lr_t, float b1, float b2, float eps_t,
                                  const float* g, float* m, float* v, float* p) {
  timed(kAdam, "adam_update", [&] { inner_.adam_update(n, lr_t, b1, b2, eps_t, g, m, v, p); });
}

}  // namespace sl
