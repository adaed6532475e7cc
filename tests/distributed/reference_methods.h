#pragma once
// Short, obviously-correct reference implementations of PAPER.md's methods, written
// independently of lib/distributed (dense vectors, full sorts), for the tests to compare with.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/counter_rng.h"

namespace sl::ref {

using Vec = std::vector<float>;

// Gradient-like test data: heavy-tailed (normal * per-block scale exp(2 normal)), with exact
// zeros and repeated magnitudes so that ties and tau = 0 are exercised.
inline Vec gradient_like(uint64_t seed, uint64_t stream, size_t P) {
  CounterRng rng(seed, stream);
  Vec v(P);
  float scale = 1;
  for (size_t i = 0; i < P; ++i) {
    if (i % 64 == 0) scale = std::exp(2.0f * rng.normal()) * 1e-3f;
    v[i] = rng.normal() * scale;
    if (i % 37 == 5) v[i] = 0.0f;
    if (i % 53 == 7) v[i] = (i % 2 ? -1.0f : 1.0f) * 2e-3f;
  }
  return v;
}

// The number of values kept: round((1 - rho) P), clamped to [1, P].
inline size_t k_of(size_t P, double rho) {
  long long k = std::llround((1.0 - rho) * static_cast<double>(P));
  return static_cast<size_t>(std::clamp<long long>(k, 1, static_cast<long long>(P)));
}

// The k-th largest |x| by a full sort.
inline float kth_largest_abs(const Vec& x, size_t k) {
  Vec mag(x.size());
  for (size_t i = 0; i < x.size(); ++i) mag[i] = std::fabs(x[i]);
  std::sort(mag.begin(), mag.end(), std::greater<float>());
  return mag[k - 1];
}

// A = g + E; tau = k-th largest |A|; S = A where |A| >= tau; E = A - S. Returns S (dense).
inline Vec compress(const Vec& g, Vec& E, double rho, float* tau_out = nullptr) {
  Vec A(g.size()), S(g.size(), 0.0f);
  for (size_t i = 0; i < g.size(); ++i) A[i] = g[i] + E[i];
  const float tau = kth_largest_abs(A, k_of(g.size(), rho));
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::fabs(A[i]) >= tau) S[i] = A[i];
    E[i] = A[i] - S[i];
  }
  if (tau_out) *tau_out = tau;
  return S;
}

// x_0 + x_1 + ... + x_{N-1}, per element in that order.
inline Vec rank_order_sum(const std::vector<Vec>& xs) {
  Vec s = xs[0];
  for (size_t m = 1; m < xs.size(); ++m)
    for (size_t i = 0; i < s.size(); ++i) s[i] += xs[m][i];
  return s;
}

// One step of method `method` ("dense" | "fedavg" | "sparse") with combiner
// ("none" | "sum" | "partial" | "error") on all N nodes: g[n] -> U[n], E[n] updated.
inline std::vector<Vec> step(const std::string& method, const std::string& combiner,
                             const std::vector<Vec>& g, std::vector<Vec>& E, double rho) {
  const size_t N = g.size(), P = g[0].size();
  if (method == "dense") return std::vector<Vec>(N, rank_order_sum(g));
  if (method == "fedavg") return g;
  std::vector<Vec> S(N), U(N);
  for (size_t n = 0; n < N; ++n) S[n] = compress(g[n], E[n], rho);
  Vec G(P, 0.0f);
  for (size_t m = 0; m < N; ++m)
    for (size_t i = 0; i < P; ++i) G[i] += S[m][i];
  for (size_t n = 0; n < N; ++n) {
    U[n] = G;
    for (size_t i = 0; i < P; ++i) {
      if (combiner == "sum") U[n][i] = G[i] + g[n][i];
      if (combiner == "partial") U[n][i] = (G[i] - S[n][i]) + g[n][i];
      if (combiner == "error") U[n][i] = G[i] + E[n][i];
    }
    if (combiner == "error") std::fill(E[n].begin(), E[n].end(), 0.0f);
  }
  return U;
}

// Bytes of one unsigned LEB128 varint.
inline size_t varint_bytes(uint64_t x) {
  size_t b = 1;
  while (x >= 0x80) x >>= 7, ++b;
  return b;
}

// Elementwise ==, counting mismatches (+0 == -0, as the float sums may differ only there).
inline size_t mismatches(const Vec& a, const Vec& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) bad += !(a[i] == b[i]);
  return bad;
}

}  // namespace sl::ref
