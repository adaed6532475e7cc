// Row kernels (last axis): one block per row, block reductions from cuda_kernel_util.cuh,
// block size from row_threads(cols). Softmax-like kernels subtract the row max before
// exponentiating, as the CPU backend does.
#include "tensor/cuda/cuda_check.h"
#include "tensor/cuda/cuda_device.h"
#include "tensor/cuda/cuda_kernel_util.cuh"
#include "tensor/cuda/kernel_math.h"
#include "tensor/row_order.h"

namespace sl {

using cuda_detail::block_max;
using cuda_detail::block_sum;
using cuda_detail::check_launch;
using cuda_detail::grid_for;
using cuda_detail::kThreads;
using cuda_detail::row_threads;

namespace {

#define SL_ROW_LOOP(c, cols) for (int c = threadIdx.x; c < (cols); c += blockDim.x)

// y = softmax(x) or log_softmax(x); x may alias y (each element is read and then written
// by the same thread, after the reductions).
__global__ void softmax_kernel(int cols, const float* x, float* y, bool log_out) {
  __shared__ float smem[32];
  const float* xr = x + int64_t(blockIdx.x) * cols;
  float* yr = y + int64_t(blockIdx.x) * cols;
  float mx = -INFINITY;
  SL_ROW_LOOP(c, cols) mx = fmaxf(mx, xr[c]);
  mx = block_max(mx, smem);
  float s = 0.0f;
  SL_ROW_LOOP(c, cols) s += expf(xr[c] - mx);
  s = block_sum(s, smem);
  if (log_out) {
    const float lse = logf(s);
    SL_ROW_LOOP(c, cols) yr[c] = xr[c] - mx - lse;
  } else {
    SL_ROW_LOOP(c, cols) yr[c] = expf(xr[c] - mx) / s;
  }
}

// softmax:     dx += y * (dy - <dy, y>)
// log_softmax: dx += dy - exp(y) * sum(dy)
__global__ void softmax_backward_kernel(int cols, const float* y, const float* dy, float* dx,
                                        bool log_in) {
  __shared__ float smem[32];
  const int64_t off = int64_t(blockIdx.x) * cols;
  const float *yr = y + off, *dyr = dy + off;
  float* dxr = dx + off;
  float s = 0.0f;
  if (log_in) {
    SL_ROW_LOOP(c, cols) s += dyr[c];
  } else {
    SL_ROW_LOOP(c, cols) s += dyr[c] * yr[c];
  }
  s = block_sum(s, smem);
  if (log_in) {
    SL_ROW_LOOP(c, cols) dxr[c] += dyr[c] - expf(yr[c]) * s;
  } else {
    SL_ROW_LOOP(c, cols) dxr[c] += yr[c] * (dyr[c] - s);
  }
}

// Two passes (mean, then squared deviations): no cancellation for rows with a large mean.
__global__ void layer_norm_kernel(int cols, float eps, const float* x, const float* gamma,
                                  const float* beta, float* y, float* mean, float* rstd) {
  __shared__ float smem[32];
  const int64_t off = int64_t(blockIdx.x) * cols;
  const float* xr = x + off;
  float* yr = y + off;
  float s = 0.0f;
  SL_ROW_LOOP(c, cols) s += xr[c];
  const float mu = block_sum(s, smem) / float(cols);
  float v = 0.0f;
  SL_ROW_LOOP(c, cols) {
    const float d = xr[c] - mu;
    v += d * d;
  }
  const float rs = 1.0f / sqrtf(block_sum(v, smem) / float(cols) + eps);
  SL_ROW_LOOP(c, cols) yr[c] = (xr[c] - mu) * rs * gamma[c] + beta[c];
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = rs;
  }
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * gamma.
__global__ void layer_norm_dx_kernel(int cols, const float* x, const float* gamma,
                                     const float* mean, const float* rstd, const float* dy,
                                     float* dx) {
  __shared__ float smem[32];
  const int64_t off = int64_t(blockIdx.x) * cols;
  const float *xr = x + off, *dyr = dy + off;
  float* dxr = dx + off;
  const float mu = mean[blockIdx.x], rs = rstd[blockIdx.x];
  float sg = 0.0f, sgx = 0.0f;
  SL_ROW_LOOP(c, cols) {
    const float g = dyr[c] * gamma[c];
    sg += g;
    sgx += g * (xr[c] - mu) * rs;
  }
  const float mg = block_sum(sg, smem) / float(cols);
  const float mgx = block_sum(sgx, smem) / float(cols);
  SL_ROW_LOOP(c, cols) {
    const float xhat = (xr[c] - mu) * rs;
    dxr[c] += rs * (dyr[c] * gamma[c] - mg - xhat * mgx);
  }
}

// Softmax into probs and the label-smoothed loss; pad rows get loss 0 and probs 0 (as on
// the CPU). A target outside [0, V) that is not pad_id gives a NaN loss (the CPU backend
// throws; a kernel cannot, and NaN is what the trainer's checks look for).
__global__ void cross_entropy_kernel(int V, const float* logits, const int32_t* targets,
                                     int pad_id, float smoothing, float* loss, float* probs) {
  __shared__ float smem[32];
  const int r = blockIdx.x;
  const float* xr = logits + int64_t(r) * V;
  float* pr = probs + int64_t(r) * V;
  const int t = targets[r];  // the same for the whole block, so the early return is uniform
  if (t == pad_id) {
    SL_ROW_LOOP(c, V) pr[c] = 0.0f;
    if (threadIdx.x == 0) loss[r] = 0.0f;
    return;
  }
  float mx = -INFINITY;
  SL_ROW_LOOP(c, V) mx = fmaxf(mx, xr[c]);
  mx = block_max(mx, smem);
  float se = 0.0f, sx = 0.0f;
  SL_ROW_LOOP(c, V) {
    se += expf(xr[c] - mx);
    sx += xr[c] - mx;
  }
  se = block_sum(se, smem);
  sx = block_sum(sx, smem);
  SL_ROW_LOOP(c, V) pr[c] = expf(xr[c] - mx) / se;
  if (threadIdx.x == 0)
    loss[r] = (t < 0 || t >= V) ? NAN : kmath::smoothed_nll(xr[t], mx, logf(se), sx, V, smoothing);
}

__global__ void cross_entropy_backward_kernel(size_t n, int V, const float* probs,
                                              const int32_t* targets, int pad_id,
                                              float smoothing, const float* dloss,
                                              float* dlogits) {
  SL_GRID_STRIDE(i, n) {
    const size_t r = i / V;
    const int v = int(i % V), t = targets[r];
    if (t == pad_id) continue;
    dlogits[i] += dloss[r] * (probs[i] - kmath::smoothed_target(v, t, V, smoothing));
  }
}

__global__ void attention_mask_kernel(size_t n, int H, int Tq, int Tk, const int32_t* key_lengths,
                                      bool causal, float* scores) {
  SL_GRID_STRIDE(i, n) {
    const int k = int(i % Tk);
    const int q = int((i / Tk) % Tq);
    const size_t b = i / (size_t(Tk) * Tq * H);
    const int len = key_lengths ? key_lengths[b] : Tk;
    if (kmath::attention_masked(q, k, len, causal)) scores[i] = -1e9f;
  }
}

__global__ void length_mask_kernel(size_t n, int S, int offset, const int32_t* lengths, bool mean,
                                   float* y) {
  SL_GRID_STRIDE(i, n) { y[i] = length_weight(offset + int(i % S), lengths[i / S], mean); }
}

// One block per row, k passes: each finds, block-wide, the best element that ranks after the
// previous pass's pick (ranks_before is a strict total order, so pass j finds the j-th).
// O(k * cols) per row: decoding's k (beam size) is small.
__global__ void row_top_k_kernel(int cols, const float* x, const float* offsets, int k,
                                 float* values, int32_t* indices) {
  __shared__ float sv[1024];
  __shared__ int sc[1024];
  const int64_t r = blockIdx.x;
  const float* xr = x + r * cols;
  const float off = offsets ? offsets[r] : 0.0f;
  float pv = 0.0f;
  int pc = -1;  // the previous pick; none yet
  for (int j = 0; j < k; ++j) {
    float bv = 0.0f;
    int bc = -1;
    SL_ROW_LOOP(c, cols) {
      const float v = offsets ? off + xr[c] : xr[c];
      if (pc >= 0 && !ranks_before(pv, pc, v, c)) continue;  // picked already
      if (bc < 0 || ranks_before(v, c, bv, bc)) {
        bv = v;
        bc = c;
      }
    }
    sv[threadIdx.x] = bv;
    sc[threadIdx.x] = bc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {  // blockDim is a power of two
      if (threadIdx.x < s) {
        const float ov = sv[threadIdx.x + s];
        const int oc = sc[threadIdx.x + s];
        if (oc >= 0 &&
            (sc[threadIdx.x] < 0 || ranks_before(ov, oc, sv[threadIdx.x], sc[threadIdx.x]))) {
          sv[threadIdx.x] = ov;
          sc[threadIdx.x] = oc;
        }
      }
      __syncthreads();
    }
    pv = sv[0];
    pc = sc[0];
    if (threadIdx.x == 0) {
      values[r * k + j] = pv;
      indices[r * k + j] = pc;
    }
    __syncthreads();  // everyone has read sv[0] before the next pass writes it
  }
}

}  // namespace

void CudaDevice::length_mask(int B, int S, int offset, const int32_t* lengths, bool mean,
                             float* y) {
  const size_t n = size_t(B > 0 ? B : 0) * size_t(S > 0 ? S : 0);
  if (!n) return;
  length_mask_kernel<<<grid_for(n), kThreads>>>(n, S, offset, lengths, mean, y);
  check_launch("length_mask");
}

void CudaDevice::row_top_k(int rows, int cols, const float* x, const float* offsets, int k,
                           float* values, int32_t* indices) {
  if (k < 0 || k > cols)
    throw std::invalid_argument("row_top_k: k = " + std::to_string(k) + " for " +
                                std::to_string(cols) + " columns");
  if (rows <= 0 || k == 0) return;
  row_top_k_kernel<<<rows, row_threads(cols)>>>(cols, x, offsets, k, values, indices);
  check_launch("row_top_k");
}

void CudaDevice::softmax(int rows, int cols, const float* x, float* y) {
  if (rows <= 0 || cols <= 0) return;
  softmax_kernel<<<rows, row_threads(cols)>>>(cols, x, y, false);
  check_launch("softmax");
}

void CudaDevice::log_softmax(int rows, int cols, const float* x, float* y) {
  if (rows <= 0 || cols <= 0) return;
  softmax_kernel<<<rows, row_threads(cols)>>>(cols, x, y, true);
  check_launch("log_softmax");
}

void CudaDevice::softmax_backward(int rows, int cols, const float* y, const float* dy, float* dx) {
  if (rows <= 0 || cols <= 0) return;
  softmax_backward_kernel<<<rows, row_threads(cols)>>>(cols, y, dy, dx, false);
  check_launch("softmax_backward");
}

void CudaDevice::log_softmax_backward(int rows, int cols, const float* y, const float* dy,
                                      float* dx) {
  if (rows <= 0 || cols <= 0) return;
  softmax_backward_kernel<<<rows, row_threads(cols)>>>(cols, y, dy, dx, true);
  check_launch("log_softmax_backward");
}

void CudaDevice::layer_norm(int rows, int cols, float eps, const float* x, const float* gamma,
                            const float* beta, float* y, float* mean, float* rstd) {
  if (rows <= 0 || cols <= 0) return;
  layer_norm_kernel<<<rows, row_threads(cols)>>>(cols, eps, x, gamma, beta, y, mean, rstd);
  check_launch("layer_norm");
}

void CudaDevice::layer_norm_backward(int rows, int cols, const float* x, const float* gamma,
                                     const float* mean, const float* rstd, const float* dy,
                                     float* dx, float* dgamma, float* dbeta) {
  if (rows <= 0 || cols <= 0) return;
  layer_norm_dx_kernel<<<rows, row_threads(cols)>>>(cols, x, gamma, mean, rstd, dy, dx);
  check_launch("layer_norm_backward (dx)");
  cuda_detail::column_sums(*this, rows, cols, dy, x, mean, rstd, dgamma, dbeta);
}

void CudaDevice::attention_mask(int B, int H, int Tq, int Tk, const int32_t* key_lengths,
                                bool causal, float* scores) {
  const size_t n = size_t(B) * H * Tq * Tk;
  if (!n) return;
  attention_mask_kernel<<<grid_for(n), kThreads>>>(n, H, Tq, Tk, key_lengths, causal, scores);
  check_launch("attention_mask");
}

void CudaDevice::cross_entropy(int R, int V, const float* logits, const int32_t* targets,
                               int pad_id, float smoothing, float* loss, float* probs) {
  if (R <= 0 || V <= 0) return;
  cross_entropy_kernel<<<R, row_threads(V)>>>(V, logits, targets, pad_id, smoothing, loss, probs);
  check_launch("cross_entropy");
}

void CudaDevice::cross_entropy_backward(int R, int V, const float* probs, const int32_t* targets,
                                        int pad_id, float smoothing, const float* dloss,
                                        float* dlogits) {
  const size_t n = size_t(R) * V;
  if (!n) return;
  cross_entropy_backward_kernel<<<grid_for(n), kThreads>>>(n, V, probs, targets, pad_id,
                                                           smoothing, dloss, dlogits);
  check_launch("cross_entropy_backward");
}

}  // namespace sl
