// Fused training kernels of the CPU backend: dropout masks, the GRU cell, additive attention's
// hidden layer and Adam. Each is
// one pass over its data, split over the kernel threads when large (by element or batch row).
// clang-format off (must stay the first include)
#include "tensor/cpu/cpu_vectorize.h"  // first: sets the vectorisation options
// clang-format on
#include <cmath>

#include "common/counter_rng.h"
#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_math.h"
#include "tensor/cpu/cpu_threads.h"

namespace sl {

namespace {
void dropout_range(size_t lo, size_t hi, float p, float keep, uint64_t base,
                   float* __restrict mask) {
  for (size_t i = lo; i < hi; ++i) {
    // The top 24 bits, through int32 (exact: < 2^24), which AVX2 converts to float.
    const int32_t top = static_cast<int32_t>(splitmix64(base + i) >> 40);
    const float u = static_cast<float>(top) * (1.0f / 16777216.0f);
    mask[i] = u >= p ? keep : 0.0f;
  }
}
}  // namespace

void CpuDevice::dropout_mask(size_t n, float p, uint64_t seed, uint64_t stream, float* mask) {
  const float keep = 1.0f / (1.0f - p);
  // The per-stream part of the hash is hoisted; the rest is counter_uniform(seed, stream, i).
  const uint64_t base = splitmix64(seed ^ splitmix64(stream));
  cpu::parallel_for(n, cpu::kElementGrain,
                    [=](size_t lo, size_t hi) { dropout_range(lo, hi, p, keep, base, mask); });
}

namespace {
// Rows [lo, hi) of the GRU cell and of its backward: plain functions of their pointers, so
// their inner loops vectorise (the same loops over a lambda's captures did not).
void gru_rows(size_t lo, size_t hi, int H, const float* __restrict xw, const float* __restrict hu,
              const float* __restrict h_prev, float* __restrict h, float* __restrict cache) {
  for (size_t b = lo; b < hi; ++b) {
    const float* __restrict x = xw + b * 3 * H;
    const float* __restrict u = hu + b * 3 * H;
    const float* __restrict hp = h_prev + b * H;
    float* __restrict ho = h + b * H;
    float* __restrict c = cache + b * 4 * H;
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

void gru_rows_backward(size_t lo, size_t hi, int H, const float* __restrict h_prev,
                       const float* __restrict cache, const float* __restrict dh,
                       float* __restrict dxw, float* __restrict dhu, float* __restrict dh_prev) {
  for (size_t b = lo; b < hi; ++b) {
    const float* __restrict hp = h_prev + b * H;
    const float* __restrict c = cache + b * 4 * H;
    const float* __restrict d = dh + b * H;
    float* __restrict dx = dxw + b * 3 * H;
    float* __restrict du = dhu + b * 3 * H;
    float* __restrict dp = dh_prev + b * H;
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
}  // namespace

void CpuDevice::gru_cell(int B, int H, const float* xw, const float* hu, const float* h_prev,
                         float* h, float* cache) {
  cpu::parallel_for(B, cpu::row_grain(8 * static_cast<size_t>(H)),
                    [=](size_t lo, size_t hi) { gru_rows(lo, hi, H, xw, hu, h_prev, h, cache); });
}

void CpuDevice::gru_cell_backward(int B, int H, const float* h_prev, const float* cache,
                                  const float* dh, float* dxw, float* dhu, float* dh_prev) {
  cpu::parallel_for(B, cpu::row_grain(12 * static_cast<size_t>(H)), [=](size_t lo, size_t hi) {
    gru_rows_backward(lo, hi, H, h_prev, cache, dh, dxw, dhu, dh_prev);
  });
}

namespace {
// Rows [lo, hi) of [B*S, A]: t = tanh(keys + q[row / S]).
void tanh_add_range(size_t lo, size_t hi, int S, int A, const float* __restrict keys,
                    const float* __restrict q, float* __restrict t) {
  for (size_t r = lo; r < hi; ++r) {
    const float* __restrict k = keys + r * A;
    const float* __restrict qb = q + (r / S) * A;
    float* __restrict y = t + r * A;
    for (int a = 0; a < A; ++a) y[a] = cpu::tanh(k[a] + qb[a]);
  }
}

// Batch rows [lo, hi): the products are grouped as the unfused graph groups them (the outer
// product dscores v^T, then tanh's backward, then the sums), so the bits match it.
void tanh_add_backward_range(size_t lo, size_t hi, int S, int A, const float* __restrict t,
                             const float* __restrict ds, const float* __restrict v,
                             float* __restrict dkeys, bool acc_keys, float* __restrict dq,
                             bool acc_q) {
  for (size_t b = lo; b < hi; ++b) {
    float* __restrict dqb = dq ? dq + b * A : nullptr;
    if (dqb && !acc_q)
      for (int a = 0; a < A; ++a) dqb[a] = 0.0f;
    for (int s = 0; s < S; ++s) {
      const size_t r = b * S + s;
      const float* __restrict y = t + r * A;
      const float g = ds[r];
      float* __restrict dk = dkeys ? dkeys + r * A : nullptr;
      if (dk && acc_keys) {
        for (int a = 0; a < A; ++a) dk[a] += (g * v[a]) * (1.0f - y[a] * y[a]);
      } else if (dk) {
        for (int a = 0; a < A; ++a) dk[a] = (g * v[a]) * (1.0f - y[a] * y[a]);
      }
      if (dqb)
        for (int a = 0; a < A; ++a) dqb[a] += (g * v[a]) * (1.0f - y[a] * y[a]);
    }
  }
}
}  // namespace

void CpuDevice::tanh_add_rows(int B, int S, int A, const float* keys, const float* q, float* t) {
  const size_t rows = static_cast<size_t>(B) * S;
  cpu::parallel_for(rows, cpu::row_grain(4 * static_cast<size_t>(A)),
                    [=](size_t lo, size_t hi) { tanh_add_range(lo, hi, S, A, keys, q, t); });
}

void CpuDevice::tanh_add_rows_backward(int B, int S, int A, const float* t, const float* dscores,
                                       const float* v, float* dkeys, bool accumulate_keys,
                                       float* dq, bool accumulate_q) {
  // Split by batch row: each dq row sums its own S positions, in order, on one thread.
  cpu::parallel_for(static_cast<size_t>(B), cpu::row_grain(6 * static_cast<size_t>(S) * A),
                    [=](size_t lo, size_t hi) {
                      tanh_add_backward_range(lo, hi, S, A, t, dscores, v, dkeys,
                                              accumulate_keys, dq, accumulate_q);
                    });
}

void CpuDevice::adam_update(size_t n, float lr_t, float b1, float b2, float eps_t,
                            const float* __restrict g, float* __restrict m, float* __restrict v,
                            float* __restrict p) {
  const float c1 = 1.0f - b1, c2 = 1.0f - b2;
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      const float gi = g[i];
      const float mi = b1 * m[i] + c1 * gi;
      const float vi = b2 * v[i] + c2 * gi * gi;
      m[i] = mi;
      v[i] = vi;
      p[i] -= lr_t * mi / (std::sqrt(vi) + eps_t);
    }
  });
}

}  // namespace sl
