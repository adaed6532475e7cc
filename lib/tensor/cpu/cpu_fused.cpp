// Fused training kernels of the CPU backend: dropout masks, the GRU cell and Adam. Each is
// one pass over its data.
#include "tensor/cpu/cpu_vectorize.h"  // first: sets the vectorisation options
#include <cmath>

#include "common/counter_rng.h"
#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_math.h"

namespace sl {

void CpuDevice::dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream,
                             float* __restrict mask) {
  const float keep = 1.0f / (1.0f - p);
  // The per-stream part of the hash is hoisted; the rest is counter_uniform(seed, stream, i).
  const uint64_t base = splitmix64(seed ^ splitmix64(stream));
  for (size_t i = 0; i < n; ++i) {
    const float u = static_cast<float>(splitmix64(base + i) >> 40) * (1.0f / 16777216.0f);
    mask[i] = u >= p ? keep : 0.0f;
  }
}

void CpuDevice::gru_cell(int B, int H, const float* __restrict xw, const float* __restrict hu,
                         const float* __restrict h_prev, float* __restrict h,
                         float* __restrict cache) {
  for (int b = 0; b < B; ++b) {
    const float* __restrict x = xw + static_cast<size_t>(b) * 3 * H;
    const float* __restrict u = hu + static_cast<size_t>(b) * 3 * H;
    const float* __restrict hp = h_prev + static_cast<size_t>(b) * H;
    float* __restrict ho = h + static_cast<size_t>(b) * H;
    float* __restrict c = cache + static_cast<size_t>(b) * 4 * H;
    for (int j = 0; j < H; ++j) {
      const float r = cpu::sigmoid(x[j] + u[j]);
      const float z = cpu::sigmoid(x[H + j] + u[H + j]);
      const float un = u[2 * H + j];
      const float nn = cpu::tanh(x[2 * H + j] + r * un);
      ho[j] = (1.0f - z) * nn + z * hp[j];
      c[j] = r;
      c[H + j] = z;
      c[2 * H + j] = nn;
      c[3 * H + j] = un;
    }
  }
}

void CpuDevice::gru_cell_backward(int B, int H, const float* __restrict h_prev,
                                  const float* __restrict cache, const float* __restrict dh,
                                  float* __restrict dxw, float* __restrict dhu,
                                  float* __restrict dh_prev) {
  for (int b = 0; b < B; ++b) {
    const float* __restrict hp = h_prev + static_cast<size_t>(b) * H;
    const float* __restrict c = cache + static_cast<size_t>(b) * 4 * H;
    const float* __restrict d = dh + static_cast<size_t>(b) * H;
    float* __restrict dx = dxw + static_cast<size_t>(b) * 3 * H;
    float* __restrict du = dhu + static_cast<size_t>(b) * 3 * H;
    float* __restrict dp = dh_prev + static_cast<size_t>(b) * H;
    for (int j = 0; j < H; ++j) {
      const float r = c[j], z = c[H + j], nn = c[2 * H + j], un = c[3 * H + j];
      const float g = d[j];
      const float dn_pre = g * (1.0f - z) * (1.0f - nn * nn);  // through n = tanh(.)
      const float dz_pre = g * (hp[j] - nn) * z * (1.0f - z);
      const float dr_pre = dn_pre * un * r * (1.0f - r);
      dx[j] += dr_pre;
      dx[H + j] += dz_pre;
      dx[2 * H + j] += dn_pre;
      du[j] += dr_pre;
      du[H + j] += dz_pre;
      du[2 * H + j] += dn_pre * r;
      dp[j] += g * z;
    }
  }
}

void CpuDevice::adam_update(size_t n, float lr_t, float b1, float b2, float eps_t,
                            const float* __restrict g, float* __restrict m, float* __restrict v,
                            float* __restrict p) {
  const float c1 = 1.0f - b1, c2 = 1.0f - b2;
  for (size_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float mi = b1 * m[i] + c1 * gi;
    const float vi = b2 * v[i] + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr_t * mi / (std::sqrt(vi) + eps_t);
  }
}

}  // namespace sl
