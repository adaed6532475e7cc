#pragma once
#include <math.h>

#include <cstdint>

#include "common/counter_rng.h"  // SL_HOST_DEVICE, counter_uniform

// Per-element formulas of the CUDA kernels, callable on host and device. The kernels are
// thin loops around these; tests run them on the host against the CPU backend, so the
// formulas are checked on machines without a GPU. Only <math.h> functions that exist in
// both host libm and CUDA device code are used.
namespace sl {
namespace kmath {

// Separately rounded product and sum. nvcc contracts a*b+c into one FMA by default
// (-fmad=true); the host build does not (x86-64 without -march, -std=c++17 means
// -ffp-contract=off), so where a bit-identical result matters (Adam: m cancels towards 0
// and an FMA differs by up to ~4e-9 there) the device must round each operation as the
// host does. __fmul_rn/__fadd_rn are never contracted.
SL_HOST_DEVICE inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SL_HOST_DEVICE inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

SL_HOST_DEVICE inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// Unary ops: 0 relu, 1 tanh, 2 sigmoid (the order of enum class Unary).
SL_HOST_DEVICE inline float unary(int op, float x) {
  if (op == 0) return x > 0.0f ? x : 0.0f;
  if (op == 1) return tanhf(x);
  return sigmoid(x);
}
// dy * f'(x), from x and y = f(x).
SL_HOST_DEVICE inline float unary_grad(int op, float x, float y, float dy) {
  if (op == 0) return x > 0.0f ? dy : 0.0f;
  if (op == 1) return dy * (1.0f - y * y);
  return dy * y * (1.0f - y);
}

SL_HOST_DEVICE inline float dropout_value(uint64_t seed, uint64_t stream, uint64_t i, float p,
                                          float keep_scale) {
  return counter_uniform(seed, stream, i) >= p ? keep_scale : 0.0f;
}

// Masked attention score: key position k past the key length, or after q when causal.
SL_HOST_DEVICE inline bool attention_masked(int q, int k, int key_length, bool causal) {
  return k >= key_length || (causal && k > q);
}

// Label-smoothed target distribution q_v for column v of a row whose target is t.
SL_HOST_DEVICE inline float smoothed_target(int v, int t, int V, float smoothing) {
  return smoothing / static_cast<float>(V) + (v == t ? 1.0f - smoothing : 0.0f);
}

// -sum_v q_v log p_v from the row's max, log-sum-exp of (x - max), sum of (x - max) and
// the target logit: log p_v = x_v - max - lse, so sum_v log p_v = sum_x - V * lse.
SL_HOST_DEVICE inline float smoothed_nll(float x_t, float max, float lse, float sum_shifted,
                                         int V, float smoothing) {
  const float logp_t = x_t - max - lse;
  // Without smoothing the sum over all log p_v is not used: skipping it (as the CPU backend
  // does) keeps a -inf logit elsewhere in the row from turning 0 * -inf into NaN.
  if (smoothing == 0.0f) return -logp_t;
  const float sum_logp = sum_shifted - static_cast<float>(V) * lse;
  return -((1.0f - smoothing) * logp_t + (smoothing / static_cast<float>(V)) * sum_logp);
}

// GRU forward for one (batch, unit): gates r, z, n (PyTorch order) and the new state.
struct GruForward {
  float r, z, n, h;
};
SL_HOST_DEVICE inline GruForward gru_forward(float xr, float xz, float xn, float hr, float hz,
                                             float hn, float h_prev) {
  GruForward o;
  o.r = sigmoid(xr + hr);
  o.z = sigmoid(xz + hz);
  o.n = tanhf(xn + o.r * hn);
  o.h = (1.0f - o.z) * o.n + o.z * h_prev;
  return o;
}

// GRU backward for one (batch, unit): gradients of the pre-activations (shared by xw and
// hu for r and z; for n, xw gets d_an and hu gets d_an * r) and of h_prev.
struct GruBackward {
  float d_ar, d_az, d_an, d_hu_n, d_h_prev;
};
SL_HOST_DEVICE inline GruBackward gru_backward(float r, float z, float n, float hu_n,
                                               float h_prev, float dh) {
  GruBackward g;
  const float dn = dh * (1.0f - z);
  const float dz = dh * (h_prev - n);
  g.d_an = dn * (1.0f - n * n);
  g.d_hu_n = g.d_an * r;
  const float dr = g.d_an * hu_n;
  g.d_ar = dr * r * (1.0f - r);
  g.d_az = dz * z * (1.0f - z);
  g.d_h_prev = dh * z;
  return g;
}

// One Adam step on one parameter (bias correction already folded into lr_t and eps_t).
// Every operation rounded on its own, in CpuDevice::adam_update's order, and sqrtf and '/'
// are correctly rounded on both sides (nvcc's default -prec-sqrt/-prec-div; never build
// with --use_fast_math): the device result is bit-identical to the CPU backend's.
SL_HOST_DEVICE inline void adam_step(float g, float lr_t, float b1, float b2, float eps_t,
                                     float& m, float& v, float& p) {
  m = add_rn(mul_rn(b1, m), mul_rn(1.0f - b1, g));
  v = add_rn(mul_rn(b2, v), mul_rn(mul_rn(1.0f - b2, g), g));
  p = p - mul_rn(lr_t, m) / add_rn(sqrtf(v), eps_t);
}

}  // namespace kmath
}  // namespace sl
