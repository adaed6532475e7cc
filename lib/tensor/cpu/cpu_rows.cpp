// Last-axis kernels of the CPU backend: softmax, log-softmax, layer norm, attention and
// length masks, label-smoothed cross-entropy, decoding's per-row top-k.
// Every row is independent; softmaxes subtract the row maximum (no overflow), layer norm
// computes the variance in a second pass over the centred values (no cancellation). Large
// ones split their rows over the kernel threads.
// clang-format off (must stay the first include)
#include "tensor/cpu/cpu_vectorize.h"  // first: sets the vectorisation options
// clang-format on
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_math.h"
#include "tensor/cpu/cpu_threads.h"
#include "tensor/row_order.h"

namespace sl {

void CpuDevice::softmax(int rows, int cols, const float* x, float* y) {
  // x may alias y: each element is read before it is written.
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
      const float m = cpu::row_max(cols, xr);
      for (int c = 0; c < cols; ++c) yr[c] = cpu::exp(xr[c] - m);
      const float inv = 1.0f / cpu::row_sum(cols, yr);
      for (int c = 0; c < cols; ++c) yr[c] *= inv;
    }
  });
}

void CpuDevice::softmax_backward(int rows, int cols, const float* __restrict y,
                                 const float* __restrict dy, float* __restrict dx) {
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const size_t o = r * cols;
      const float* __restrict yr = y + o;
      const float* __restrict dyr = dy + o;
      float* __restrict dxr = dx + o;
      const float d = cpu::row_dot(cols, dyr, yr);
      for (int c = 0; c < cols; ++c) dxr[c] += yr[c] * (dyr[c] - d);
    }
  });
}

void CpuDevice::log_softmax(int rows, int cols, const float* x, float* y) {
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
      const float m = cpu::row_max(cols, xr);
      float acc[16] = {};
      int c = 0;
      for (; c + 16 <= cols; c += 16)
        for (int l = 0; l < 16; ++l) acc[l] += cpu::exp(xr[c + l] - m);
      float s = 0;
      for (; c < cols; ++c) s += cpu::exp(xr[c] - m);
      for (int l = 0; l < 16; ++l) s += acc[l];
      const float lse = m + std::log(s);
      for (c = 0; c < cols; ++c) yr[c] = xr[c] - lse;
    }
  });
}

void CpuDevice::log_softmax_backward(int rows, int cols, const float* __restrict y,
                                     const float* __restrict dy, float* __restrict dx) {
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const size_t o = r * cols;
      const float* __restrict yr = y + o;
      const float* __restrict dyr = dy + o;
      float* __restrict dxr = dx + o;
      const float s = cpu::row_sum(cols, dyr);
      for (int c = 0; c < cols; ++c) dxr[c] += dyr[c] - cpu::exp(yr[c]) * s;
    }
  });
}

void CpuDevice::layer_norm(int rows, int cols, float eps, const float* __restrict x,
                           const float* __restrict gamma, const float* __restrict beta,
                           float* __restrict y, float* __restrict mean, float* __restrict rstd) {
  const float inv_n = 1.0f / static_cast<float>(cols);
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const size_t o = r * cols;
      const float* __restrict xr = x + o;
      float* __restrict yr = y + o;
      const float mu = cpu::row_sum(cols, xr) * inv_n;
      for (int c = 0; c < cols; ++c) yr[c] = xr[c] - mu;  // centred values, reused below
      const float var = cpu::row_dot(cols, yr, yr) * inv_n;
      const float rs = 1.0f / std::sqrt(var + eps);
      for (int c = 0; c < cols; ++c) yr[c] = yr[c] * rs * gamma[c] + beta[c];
      mean[r] = mu;
      rstd[r] = rs;
    }
  });
}

void CpuDevice::layer_norm_backward(int rows, int cols, const float* __restrict x,
                                    const float* __restrict gamma, const float* __restrict mean,
                                    const float* __restrict rstd, const float* __restrict dy,
                                    float* __restrict dx, float* __restrict dgamma,
                                    float* __restrict dbeta) {
  // With xhat = (x - mean) rstd and g = dy * gamma:
  //   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)).
  const float inv_n = 1.0f / static_cast<float>(cols);
  for (int r = 0; r < rows; ++r) {
    const size_t o = static_cast<size_t>(r) * cols;
    const float* __restrict xr = x + o;
    const float* __restrict dyr = dy + o;
    float* __restrict dxr = dx + o;
    const float mu = mean[r], rs = rstd[r];
    float sg[16] = {}, sgx[16] = {};
    int c = 0;
    for (; c + 16 <= cols; c += 16)
      for (int l = 0; l < 16; ++l) {
        const float xh = (xr[c + l] - mu) * rs;
        const float g = dyr[c + l] * gamma[c + l];
        sg[l] += g;
        sgx[l] += g * xh;
        dgamma[c + l] += dyr[c + l] * xh;
        dbeta[c + l] += dyr[c + l];
      }
    float mg = 0, mgx = 0;
    for (; c < cols; ++c) {
      const float xh = (xr[c] - mu) * rs;
      const float g = dyr[c] * gamma[c];
      mg += g;
      mgx += g * xh;
      dgamma[c] += dyr[c] * xh;
      dbeta[c] += dyr[c];
    }
    for (int l = 0; l < 16; ++l) {
      mg += sg[l];
      mgx += sgx[l];
    }
    mg *= inv_n;
    mgx *= inv_n;
    for (c = 0; c < cols; ++c) {
      const float xh = (xr[c] - mu) * rs;
      dxr[c] += rs * (dyr[c] * gamma[c] - mg - xh * mgx);
    }
  }
}

void CpuDevice::attention_mask(int B, int H, int Tq, int Tk, const int32_t* __restrict key_lengths,
                               bool causal, float* __restrict scores) {
  for (int b = 0; b < B; ++b) {
    const int len = key_lengths ? key_lengths[b] : Tk;
    for (int h = 0; h < H; ++h)
      for (int q = 0; q < Tq; ++q) {
        float* __restrict row = scores + ((static_cast<size_t>(b) * H + h) * Tq + q) * Tk;
        const int limit = causal && q + 1 < len ? q + 1 : len;  // keys [limit, Tk) are masked
        for (int k = limit < 0 ? 0 : limit; k < Tk; ++k) row[k] = -1e9f;
      }
  }
}

void CpuDevice::length_mask(int B, int S, int offset, const int32_t* __restrict lengths, bool mean,
                            float* __restrict y) {
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s)
      y[static_cast<size_t>(b) * S + s] = length_weight(offset + s, lengths[b], mean);
}

void CpuDevice::row_top_k(int rows, int cols, const float* x, const float* offsets, int k,
                          float* values, int32_t* indices) {
  if (k < 0 || k > cols)
    throw std::invalid_argument("row_top_k: k = " + std::to_string(k) + " for " +
                                std::to_string(cols) + " columns");
  if (k == 0) return;
  std::vector<float> key(static_cast<size_t>(cols));
  std::vector<int32_t> col(static_cast<size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) key[c] = offsets ? offsets[r] + xr[c] : xr[c];
    std::iota(col.begin(), col.end(), 0);
    std::partial_sort(col.begin(), col.begin() + k, col.end(),
                      [&](int32_t a, int32_t b) { return ranks_before(key[a], a, key[b], b); });
    for (int j = 0; j < k; ++j) {
      values[static_cast<size_t>(r) * k + j] = key[col[j]];
      indices[static_cast<size_t>(r) * k + j] = col[j];
    }
  }
}

void CpuDevice::cross_entropy(int R, int V, const float* __restrict logits,
                              const int32_t* __restrict targets, int pad_id, float smoothing,
                              float* __restrict loss, float* __restrict probs) {
  // With sum_v q_v = 1: loss = lse - (1-ls) x_t - (ls/V) sum_v x_v, lse = log sum_v e^x_v.
  const float off = smoothing / static_cast<float>(V);
  // Targets are checked first, here: a worker thread must not throw.
  for (int r = 0; r < R; ++r) {
    const int t = targets[r];
    if (t != pad_id && (t < 0 || t >= V))
      throw std::out_of_range("cross_entropy: target " + std::to_string(t) + " of row " +
                              std::to_string(r) + " is outside [0, " + std::to_string(V) + ")");
  }
  cpu::parallel_for(R, cpu::row_grain(V), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const size_t o = r * V;
      const float* __restrict xr = logits + o;
      float* __restrict pr = probs + o;
      const int t = targets[r];
      if (t == pad_id) {
        loss[r] = 0.0f;
        for (int v = 0; v < V; ++v) pr[v] = 0.0f;
        continue;
      }
      const float m = cpu::row_max(V, xr);
      for (int v = 0; v < V; ++v) pr[v] = cpu::exp(xr[v] - m);
      const float s = cpu::row_sum(V, pr);
      const float inv = 1.0f / s;
      for (int v = 0; v < V; ++v) pr[v] *= inv;
      const float lse = m + std::log(s);
      const float sum_x = off != 0.0f ? cpu::row_sum(V, xr) : 0.0f;
      loss[r] = lse - (1.0f - smoothing) * xr[t] - off * sum_x;
    }
  });
}

void CpuDevice::cross_entropy_backward(int R, int V, const float* __restrict probs,
                                       const int32_t* __restrict targets, int pad_id,
                                       float smoothing, const float* __restrict dloss,
                                       float* __restrict dlogits) {
  const float off = smoothing / static_cast<float>(V);
  cpu::parallel_for(R, cpu::row_grain(V), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const int t = targets[r];
      if (t == pad_id) continue;
      const size_t o = static_cast<size_t>(r) * V;
      const float* __restrict pr = probs + o;
      float* __restrict dr = dlogits + o;
      const float d = dloss[r];
      for (int v = 0; v < V; ++v) dr[v] += d * (pr[v] - off);
      dr[t] -= d * (1.0f - smoothing);
    }
  });
}

}  // namespace sl
