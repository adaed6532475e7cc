// Element-wise kernels: one thread per element in a grid-stride loop. The per-element
// formulas of the fused ones (GRU, Adam, dropout) live in kernel_math.h, shared with tests.
#include <string>

#include "tensor/cuda/cuda_check.h"
#include "tensor/cuda/cuda_device.h"
#include "tensor/cuda/cuda_kernel_util.cuh"
#include "tensor/cuda/kernel_math.h"

namespace sl {

using cuda_detail::check_launch;
using cuda_detail::grid_for;
using cuda_detail::kThreads;

namespace {

__global__ void fill_kernel(size_t n, float value, float* y) {
  SL_GRID_STRIDE(i, n) y[i] = value;
}

// b == 0 overwrites without reading y (BLAS convention: y may be uninitialised).
__global__ void axpby_kernel(size_t n, float a, const float* x, float b, float* y) {
  if (b == 0.0f) {
    SL_GRID_STRIDE(i, n) y[i] = a * x[i];
  } else {
    SL_GRID_STRIDE(i, n) y[i] = a * x[i] + b * y[i];
  }
}

__global__ void mul_kernel(size_t n, const float* x1, const float* x2, float* y, bool acc) {
  SL_GRID_STRIDE(i, n) {
    const float v = x1[i] * x2[i];
    y[i] = acc ? y[i] + v : v;
  }
}

__global__ void add_bias_kernel(size_t n, int cols, const float* x, const float* bias, float* y) {
  SL_GRID_STRIDE(i, n) y[i] = x[i] + bias[i % cols];
}

__global__ void mul_rows_kernel(size_t n, int cols, const float* x, const float* m, float* y,
                                bool acc) {
  SL_GRID_STRIDE(i, n) {
    const float v = x[i] * m[i / cols];
    y[i] = acc ? y[i] + v : v;
  }
}

__global__ void unary_kernel(int op, size_t n, const float* x, float* y) {
  SL_GRID_STRIDE(i, n) y[i] = kmath::unary(op, x[i]);
}

__global__ void unary_backward_kernel(int op, size_t n, const float* x, const float* y,
                                      const float* dy, float* dx) {
  SL_GRID_STRIDE(i, n) dx[i] += kmath::unary_grad(op, x[i], y[i], dy[i]);
}

__global__ void broadcast_scalar_acc_kernel(size_t n, float alpha, const float* dy, float* dx) {
  const float v = alpha * dy[0];
  SL_GRID_STRIDE(i, n) dx[i] += v;
}

__global__ void dropout_mask_kernel(size_t n, float p, float keep_scale, uint64_t seed,
                                    uint64_t stream, float* mask) {
  SL_GRID_STRIDE(i, n) mask[i] = kmath::dropout_value(seed, stream, i, p, keep_scale);
}

__global__ void gru_cell_kernel(int H, size_t n, const float* xw, const float* hu,
                                const float* h_prev, float* h, float* cache) {
  SL_GRID_STRIDE(i, n) {
    const size_t b = i / H, j = i % H;
    const float* x = xw + b * 3 * H + j;
    const float* u = hu + b * 3 * H + j;
    const kmath::GruForward o = kmath::gru_forward(x[0], x[H], x[2 * H], u[0], u[H], u[2 * H], h_prev[i]);
    h[i] = o.h;
    float* c = cache + b * 4 * H + j;
    c[0] = o.r;
    c[H] = o.z;
    c[2 * H] = o.n;
    c[3 * H] = u[2 * H];
  }
}

__global__ void gru_cell_backward_kernel(int H, size_t n, const float* h_prev, const float* cache,
                                         const float* dh, float* dxw, float* dhu, float* dh_prev) {
  SL_GRID_STRIDE(i, n) {
    const size_t b = i / H, j = i % H;
    const float* c = cache + b * 4 * H + j;
    const kmath::GruBackward g = kmath::gru_backward(c[0], c[H], c[2 * H], c[3 * H], h_prev[i], dh[i]);
    float* dx = dxw + b * 3 * H + j;
    float* du = dhu + b * 3 * H + j;
    dx[0] += g.d_ar;
    dx[H] += g.d_az;
    dx[2 * H] += g.d_an;
    du[0] += g.d_ar;
    du[H] += g.d_az;
    du[2 * H] += g.d_hu_n;
    dh_prev[i] += g.d_h_prev;
  }
}

__global__ void tanh_add_rows_kernel(int S, int A, size_t n, const float* keys, const float* q,
                                     float* t) {
  SL_GRID_STRIDE(i, n) {
    const size_t row = i / A, a = i % A;
    t[i] = tanhf(keys[i] + q[(row / S) * A + a]);
  }
}

// One thread per (b, a): it walks the S positions in order, so dq sums as on the CPU.
__global__ void tanh_add_rows_backward_kernel(int S, int A, size_t n, const float* t,
                                              const float* ds, const float* v, float* dkeys,
                                              bool acc_keys, float* dq, bool acc_q) {
  SL_GRID_STRIDE(i, n) {
    const size_t b = i / A, a = i % A;
    float sum = (dq && acc_q) ? dq[i] : 0.0f;
    for (int s = 0; s < S; ++s) {
      const size_t r = b * S + s, k = r * A + a;
      const float y = t[k];
      const float d = (ds[r] * v[a]) * (1.0f - y * y);
      if (dkeys) dkeys[k] = acc_keys ? dkeys[k] + d : d;
      sum += d;
    }
    if (dq) dq[i] = sum;
  }
}

__global__ void adam_kernel(size_t n, float lr_t, float b1, float b2, float eps_t, const float* g,
                            float* m, float* v, float* p) {
  SL_GRID_STRIDE(i, n) {
    float mi = m[i], vi = v[i], pi = p[i];
    kmath::adam_step(g[i], lr_t, b1, b2, eps_t, mi, vi, pi);
    m[i] = mi;
    v[i] = vi;
    p[i] = pi;
  }
}

}  // namespace

namespace cuda_detail {
bool kernels_loadable(std::string* why) {
  cudaFuncAttributes attr;
  const cudaError_t e = cudaFuncGetAttributes(&attr, fill_kernel);
  if (e == cudaSuccess) return true;
  cudaGetLastError();
  if (why)
    *why = "the CUDA kernels cannot run on this GPU: " + cuda_error_text(e) +
           "; they were built for CMAKE_CUDA_ARCHITECTURES=" SL_CUDA_ARCHS
           ", reconfigure with this GPU's compute capability";
  return false;
}
}  // namespace cuda_detail

void CudaDevice::fill(size_t n, float value, float* y) {
  if (!n) return;
  fill_kernel<<<grid_for(n), kThreads>>>(n, value, y);
  check_launch("fill");
}

void CudaDevice::axpby(size_t n, float a, const float* x, float b, float* y) {
  if (!n) return;
  axpby_kernel<<<grid_for(n), kThreads>>>(n, a, x, b, y);
  check_launch("axpby");
}

void CudaDevice::mul(size_t n, const float* x1, const float* x2, float* y, bool accumulate) {
  if (!n) return;
  mul_kernel<<<grid_for(n), kThreads>>>(n, x1, x2, y, accumulate);
  check_launch("mul");
}

void CudaDevice::add_bias(int rows, int cols, const float* x, const float* bias, float* y) {
  const size_t n = size_t(rows) * cols;
  if (!n) return;
  add_bias_kernel<<<grid_for(n), kThreads>>>(n, cols, x, bias, y);
  check_launch("add_bias");
}

void CudaDevice::mul_rows(int rows, int cols, const float* x, const float* m, float* y,
                          bool accumulate) {
  const size_t n = size_t(rows) * cols;
  if (!n) return;
  mul_rows_kernel<<<grid_for(n), kThreads>>>(n, cols, x, m, y, accumulate);
  check_launch("mul_rows");
}

void CudaDevice::unary(Unary op, size_t n, const float* x, float* y) {
  if (!n) return;
  unary_kernel<<<grid_for(n), kThreads>>>(static_cast<int>(op), n, x, y);
  check_launch("unary");
}

void CudaDevice::unary_backward(Unary op, size_t n, const float* x, const float* y,
                                const float* dy, float* dx) {
  if (!n) return;
  unary_backward_kernel<<<grid_for(n), kThreads>>>(static_cast<int>(op), n, x, y, dy, dx);
  check_launch("unary_backward");
}

void CudaDevice::broadcast_scalar_acc(size_t n, float alpha, const float* dy, float* dx) {
  if (!n) return;
  broadcast_scalar_acc_kernel<<<grid_for(n), kThreads>>>(n, alpha, dy, dx);
  check_launch("broadcast_scalar_acc");
}

void CudaDevice::dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream, float* mask) {
  if (!n) return;
  // The scale is computed once on the host, as the CPU backend does, so masks match bitwise.
  const float keep_scale = 1.0f / (1.0f - p);
  dropout_mask_kernel<<<grid_for(n), kThreads>>>(n, p, keep_scale, seed, stream, mask);
  check_launch("dropout_mask");
}

void CudaDevice::gru_cell(int B, int H, const float* xw, const float* hu, const float* h_prev,
                          float* h, float* cache) {
  const size_t n = size_t(B) * H;
  if (!n) return;
  gru_cell_kernel<<<grid_for(n), kThreads>>>(H, n, xw, hu, h_prev, h, cache);
  check_launch("gru_cell");
}

void CudaDevice::gru_cell_backward(int B, int H, const float* h_prev, const float* cache,
                                   const float* dh, float* dxw, float* dhu, float* dh_prev) {
  const size_t n = size_t(B) * H;
  if (!n) return;
  gru_cell_backward_kernel<<<grid_for(n), kThreads>>>(H, n, h_prev, cache, dh, dxw, dhu, dh_prev);
  check_launch("gru_cell_backward");
}

void CudaDevice::tanh_add_rows(int B, int S, int A, const float* keys, const float* q, float* t) {
  const size_t n = size_t(B) * S * A;
  if (!n) return;
  tanh_add_rows_kernel<<<grid_for(n), kThreads>>>(S, A, n, keys, q, t);
  check_launch("tanh_add_rows");
}

void CudaDevice::tanh_add_rows_backward(int B, int S, int A, const float* t, const float* dscores,
                                        const float* v, float* dkeys, bool accumulate_keys,
                                        float* dq, bool accumulate_q) {
  const size_t n = size_t(B) * A;
  if (!n || (!dkeys && !dq)) return;
  tanh_add_rows_backward_kernel<<<grid_for(n), kThreads>>>(S, A, n, t, dscores, v, dkeys,
                                                           accumulate_keys, dq, accumulate_q);
  check_launch("tanh_add_rows_backward");
}

void CudaDevice::adam_update(size_t n, float lr_t, float b1, float b2, float eps_t, const float* g,
                             float* m, float* v, float* p) {
  if (!n) return;
  adam_kernel<<<grid_for(n), kThreads>>>(n, lr_t, b1, b2, eps_t, g, m, v, p);
  check_launch("adam_update");
}

}  // namespace sl
