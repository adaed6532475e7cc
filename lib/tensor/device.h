#pragma once
#include <cstddef>
#include <cstdint>

namespace sl {

enum class Unary { Relu, Tanh, Sigmoid };

// Where the matrices of gemm_grid lie: matrix (o, i) starts `o * outer + i * inner` floats
// from the base pointer and its rows are `ld` floats apart. Attention heads are read and
// written in place this way: head h of a [B, T, heads * Dh] activation is matrix (b, h) with
// outer T * heads * Dh, inner Dh, ld heads * Dh.
struct MatrixGrid {
  int64_t outer = 0, inner = 0;
  int ld = 0;
};

// The kernels every backend provides, on raw device pointers, row-major.
// Conventions: "_backward" kernels and every kernel with `accumulate` ADD into their
// outputs (gradients accumulate); all others overwrite. Sizes are element counts.
// This is the whole contract between autograd and a backend: a new backend implements
// this class and every op and model runs on it (tests compare backends op by op).
class Device {
 public:
  virtual ~Device() = default;
  virtual const char* name() const = 0;
  virtual bool is_cuda() const { return false; }

  // ---- memory
  virtual void* alloc(size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void to_host(void* host_dst, const void* src, size_t bytes) = 0;
  virtual void from_host(void* dst, const void* host_src, size_t bytes) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  virtual void synchronize() {}

  // ---- BLAS: C = alpha * op(A) * op(B) + beta * C; op(A) is MxK, op(B) is KxN, C is MxN.
  virtual void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A,
                    const float* B, float beta, float* C) = 0;
  virtual void gemm_batched(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                            const float* A, int64_t stride_a, const float* B, int64_t stride_b,
                            float beta, float* C, int64_t stride_c, int batch) = 0;
  // C(o,i) = alpha op(A(o,i)) op(B(o,i)) + beta C(o,i) for every o < outer, i < inner, each
  // matrix placed by its MatrixGrid (the leading dimensions of op's stored matrices are the
  // grids' ld). Each product is the same BLAS call a contiguous copy of it would get, so the
  // result has the same bits as gemm_batched on split-and-merged copies.
  virtual void gemm_grid(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                         const float* A, MatrixGrid grid_a, const float* B, MatrixGrid grid_b,
                         float beta, float* C, MatrixGrid grid_c, int outer, int inner) = 0;

  // ---- element-wise
  virtual void fill(size_t n, float value, float* y) = 0;
  virtual void axpby(size_t n, float a, const float* x, float b, float* y) = 0;  // y = a x + b y
  virtual void mul(size_t n, const float* x1, const float* x2, float* y, bool accumulate) = 0;
  // y[r,c] = x[r,c] + bias[c]   (x may alias y)
  virtual void add_bias(int rows, int cols, const float* x, const float* bias, float* y) = 0;
  // y[c] += sum_r x[r,c]
  virtual void sum_rows_acc(int rows, int cols, const float* x, float* y) = 0;
  // y[r,c] (+)= x[r,c] * m[r]   (per-row scale, e.g. padding masks)
  virtual void mul_rows(int rows, int cols, const float* x, const float* m, float* y,
                        bool accumulate) = 0;
  virtual void unary(Unary op, size_t n, const float* x, float* y) = 0;
  // dx += dy * f'(x), given x and y = f(x)
  virtual void unary_backward(Unary op, size_t n, const float* x, const float* y,
                              const float* dy, float* dx) = 0;
  // y[0] (+)= sum_i x[i]   (y is a device scalar)
  virtual void reduce_sum(size_t n, const float* x, float* y, bool accumulate) = 0;
  // dx[i] += alpha * dy[0]
  virtual void broadcast_scalar_acc(size_t n, float alpha, const float* dy, float* dx) = 0;
  // sum of squares, returned to the host (global-norm clipping)
  virtual double sum_squares(size_t n, const float* x) = 0;

  // ---- layout
  // dst[r * dst_ld + j] (+)= src[r * src_ld + j] for r < rows, j < width (concat/slice);
  // src_ld 0 repeats one row (a bias broadcast, ops::linear)
  virtual void copy_block(int rows, int width, const float* src, int64_t src_ld, float* dst,
                          int64_t dst_ld, bool accumulate) = 0;
  // y = x.permute(perm) for a 4-D x of dims `dims`; y's dim i is x's dim perm[i]
  virtual void permute4(const int dims[4], const int perm[4], const float* x, float* y,
                        bool accumulate) = 0;
  // y[i, :] = table[ids[i], :]
  virtual void embedding(int n, int dim, const float* table, const int32_t* ids, float* y) = 0;
  // dtable[ids[i], :] += dy[i, :]   (scatter-add, deterministic order)
  virtual void embedding_backward(int n, int dim, const float* dy, const int32_t* ids,
                                  float* dtable) = 0;

  // ---- rows (last axis)
  virtual void softmax(int rows, int cols, const float* x, float* y) = 0;
  virtual void softmax_backward(int rows, int cols, const float* y, const float* dy,
                                float* dx) = 0;  // dx += y * (dy - <dy, y>)
  virtual void log_softmax(int rows, int cols, const float* x, float* y) = 0;
  virtual void log_softmax_backward(int rows, int cols, const float* y, const float* dy,
                                    float* dx) = 0;  // dx += dy - exp(y) * sum(dy)
  // y = (x - mean) * rstd * gamma + beta; mean and rstd [rows] saved for backward
  virtual void layer_norm(int rows, int cols, float eps, const float* x, const float* gamma,
                          const float* beta, float* y, float* mean, float* rstd) = 0;
  virtual void layer_norm_backward(int rows, int cols, const float* x, const float* gamma,
                                   const float* mean, const float* rstd, const float* dy,
                                   float* dx, float* dgamma, float* dbeta) = 0;
  // scores [B, H, Tq, Tk]: key positions k >= key_lengths[b], and k > q when causal, are set
  // to -1e9 in place (a following softmax gives them weight 0, so their gradient is 0). A null
  // key_lengths means every key is real (only the causal mask applies).
  virtual void attention_mask(int B, int H, int Tq, int Tk, const int32_t* key_lengths,
                              bool causal, float* scores) = 0;
  // y [B, S]: y[b, s] = offset + s < lengths[b] ? (mean ? 1.0f / lengths[b] : 1) : 0. Padding
  // masks (S = 1, offset t: the rows still inside their sentence at step t) and per-sentence
  // mean weights (offset 0, mean), from lengths already on the device: no upload mid-forward.
  virtual void length_mask(int B, int S, int offset, const int32_t* lengths, bool mean,
                           float* y) = 0;
  // Per row r of x [rows, cols], the k (<= cols) best columns by key(c) = offsets[r] + x[r, c]
  // (x[r, c] when offsets is null), in float, best first: key descending, then column
  // ascending; NaN keys rank below every number. values / indices [rows, k] get the keys and
  // the columns. Decoding's greedy / beam choice on the device: only k values per row return.
  virtual void row_top_k(int rows, int cols, const float* x, const float* offsets, int k,
                         float* values, int32_t* indices) = 0;

  // ---- fused training kernels
  // mask[i] = (u(seed, stream, i) >= p) ? 1/(1-p) : 0   with sl::counter_uniform
  virtual void dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream, float* mask) = 0;
  // Label-smoothed cross-entropy per row: q = (1-ls) onehot(t) + ls/V;
  // loss[r] = -sum_v q_v log softmax(logits[r])_v, and 0 for rows whose target == pad_id.
  // probs [R, V] keeps softmax(logits) for the backward.
  virtual void cross_entropy(int R, int V, const float* logits, const int32_t* targets,
                             int pad_id, float smoothing, float* loss, float* probs) = 0;
  // dlogits[r] += dloss[r] * (probs[r] - q[r]); pad rows get nothing
  virtual void cross_entropy_backward(int R, int V, const float* probs, const int32_t* targets,
                                      int pad_id, float smoothing, const float* dloss,
                                      float* dlogits) = 0;
  // GRU cell (PyTorch gate order r, z, n), inputs already projected with biases:
  //   xw = x W + b_w [B,3H], hu = h U + b_u [B,3H]
  //   r = sig(xw_r + hu_r), z = sig(xw_z + hu_z), n = tanh(xw_n + r * hu_n)
  //   h = (1 - z) * n + z * h_prev ;  cache [B,4H] keeps r, z, n, hu_n for the backward
  virtual void gru_cell(int B, int H, const float* xw, const float* hu, const float* h_prev,
                        float* h, float* cache) = 0;
  virtual void gru_cell_backward(int B, int H, const float* h_prev, const float* cache,
                                 const float* dh, float* dxw, float* dhu, float* dh_prev) = 0;
  // Additive (Bahdanau) attention's hidden layer, the query broadcast over its row's S positions:
  //   t[b,s,:] = tanh(keys[b,s,:] + q[b,:])        keys, t [B,S,A]; q [B,A]
  virtual void tanh_add_rows(int B, int S, int A, const float* keys, const float* q,
                             float* t) = 0;
  // Backward through t of scores = t v (v [A]), given dscores [B,S], without forming dt:
  //   dpre = (dscores[b,s] v[a]) (1 - t^2);  dkeys += dpre;  dq[b,:] += sum over s (s ascending)
  // accumulate false overwrites (the buffer may start uninitialised); a null dkeys / dq is
  // skipped.
  virtual void tanh_add_rows_backward(int B, int S, int A, const float* t, const float* dscores,
                                      const float* v, float* dkeys, bool accumulate_keys,
                                      float* dq, bool accumulate_q) = 0;
  // Adam with bias correction folded into lr_t: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
  // p -= lr_t * m / (sqrt(v) + eps_t)
  virtual void adam_update(size_t n, float lr_t, float b1, float b2, float eps_t, const float* g,
                           float* m, float* v, float* p) = 0;
};

// The process-wide CPU backend (OpenBLAS for GEMM, plain loops elsewhere).
Device& cpu_device();
// Threads OpenBLAS may use (1 per rank or simulated node when several share the cores).
void set_blas_threads(int n);

}  // namespace sl
