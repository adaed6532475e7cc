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

// ---------------------------------------------------------------------------------------
// The methods after the paper (BEYOND.md), written as plainly as their formulas,
// on all N nodes at once. A tensor is (offset, n rows, m cols) of the flat buffer; elements
// outside every tensor (alignment padding) keep g_n.
namespace sl::ref {

struct Tensor2 {
  size_t off, n, m;
};

inline float at(const Vec& v, const Tensor2& w, size_t i, size_t j) {
  return v[w.off + i * w.m + j];
}

// ---- PowerSGD: P = sum_n M_n Q, P^ = Gram-Schmidt(P), Q = sum_n M_n^T P^, G = P^ Q^T,
// E_n = M_n - G / N; small tensors (r (n + m) >= n m, rate 1) all-reduced dense.
struct PowerSgdRef {
  std::vector<Tensor2> layout;
  size_t r;
  int64_t warmup;
  bool warm_start;
  uint64_t seed;
  std::vector<Vec> E;  // per node, P floats
  std::vector<Vec> Q;  // per compressed tensor, m x r (the same on every node)
  int64_t t = 0;

  bool compressed(const Tensor2& w) const { return r * (w.n + w.m) < w.n * w.m; }

  void draw(uint64_t stream_base) {
    size_t k = 0;
    for (const Tensor2& w : layout) {
      if (!compressed(w)) continue;
      CounterRng rng(seed, stream_base + k);
      Q[k].assign(w.m * r, 0.0f);
      for (float& q : Q[k]) q = rng.normal();
      ++k;
    }
  }

  PowerSgdRef(std::vector<Tensor2> l, size_t rank, int64_t w, bool ws, uint64_t s, int N, size_t P)
      : layout(std::move(l)), r(rank), warmup(w), warm_start(ws), seed(s), E(N, Vec(P, 0.0f)) {
    size_t k = 0;
    for (const Tensor2& x : layout) k += compressed(x);
    Q.resize(k);
    draw(0);
  }

  std::vector<Vec> step(const std::vector<Vec>& g) {
    const size_t N = g.size();
    std::vector<Vec> U = g;
    if (t < warmup) {
      U.assign(N, rank_order_sum(g));
      ++t;
      return U;
    }
    if (!warm_start) draw((uint64_t(t) + 1) * Q.size());
    size_t k = 0;
    for (const Tensor2& w : layout) {
      if (!compressed(w)) {
        for (size_t i = 0; i < w.n * w.m; ++i) {
          float s = g[0][w.off + i];
          for (size_t x = 1; x < N; ++x) s += g[x][w.off + i];
          for (size_t x = 0; x < N; ++x) U[x][w.off + i] = s;
        }
        continue;
      }
      std::vector<Vec> M(N, Vec(w.n * w.m));
      for (size_t x = 0; x < N; ++x)
        for (size_t i = 0; i < w.n * w.m; ++i) M[x][i] = g[x][w.off + i] + E[x][w.off + i];
      Vec& q = Q[k++];
      Vec P(w.n * r, 0.0f);
      for (size_t x = 0; x < N; ++x)
        for (size_t i = 0; i < w.n; ++i)
          for (size_t c = 0; c < r; ++c) {
            double s = 0;
            for (size_t j = 0; j < w.m; ++j) s += double(M[x][i * w.m + j]) * q[j * r + c];
            P[i * r + c] = x == 0 ? float(s) : P[i * r + c] + float(s);
          }
      for (size_t c = 0; c < r; ++c) {  // modified Gram-Schmidt, zero columns stay zero
        double nn = 0;
        for (size_t i = 0; i < w.n; ++i) nn += double(P[i * r + c]) * P[i * r + c];
        const double norm = std::sqrt(nn);
        for (size_t i = 0; i < w.n; ++i)
          P[i * r + c] = norm > 0 ? float(P[i * r + c] / norm) : 0.0f;
        for (size_t c2 = c + 1; c2 < r; ++c2) {
          double dot = 0;
          for (size_t i = 0; i < w.n; ++i) dot += double(P[i * r + c]) * P[i * r + c2];
          for (size_t i = 0; i < w.n; ++i)
            P[i * r + c2] = float(P[i * r + c2] - dot * P[i * r + c]);
        }
      }
      for (size_t x = 0; x < N; ++x)
        for (size_t j = 0; j < w.m; ++j)
          for (size_t c = 0; c < r; ++c) {
            double s = 0;
            for (size_t i = 0; i < w.n; ++i) s += double(M[x][i * w.m + j]) * P[i * r + c];
            q[j * r + c] = x == 0 ? float(s) : q[j * r + c] + float(s);
          }
      for (size_t i = 0; i < w.n; ++i)
        for (size_t j = 0; j < w.m; ++j) {
          double s = 0;
          for (size_t c = 0; c < r; ++c) s += double(P[i * r + c]) * q[j * r + c];
          const float G = float(s);
          for (size_t x = 0; x < N; ++x) {
            E[x][w.off + i * w.m + j] = M[x][i * w.m + j] - G / float(N);
            U[x][w.off + i * w.m + j] = G;
          }
        }
    }
    ++t;
    return U;
  }
};

// ---- DiLoCo's outer step after H inner steps: theta_bar = mean_n theta_n (rank-order sum
// / N), Delta = anchor - theta_bar, b = mu b + Delta, theta = anchor - lr (Delta + mu b)
// (Nesterov) or anchor - lr b; anchor = theta. Returns theta, the same for every node.
inline Vec diloco_outer(const std::vector<Vec>& theta, Vec& anchor, Vec& b, float lr, float mu,
                        bool nesterov, double* delta_norm = nullptr) {
  Vec mean = rank_order_sum(theta);
  for (float& x : mean) x = x / float(theta.size());
  double n2 = 0;
  for (size_t i = 0; i < mean.size(); ++i) {
    const float delta = anchor[i] - mean[i];
    n2 += double(delta) * delta;
    b[i] = mu * b[i] + delta;
    anchor[i] = anchor[i] - lr * (nesterov ? delta + mu * b[i] : b[i]);
  }
  if (delta_norm) *delta_norm = std::sqrt(n2);
  return anchor;
}

// ---- DeMo. A chunk transform: (h, w, h x w block) -> h x w block.
using ChunkTransform = std::function<Vec(size_t, size_t, const Vec&)>;

// The largest divisor of dim that is <= s.
inline size_t demo_chunk(size_t dim, size_t s) {
  size_t best = 1;
  for (size_t d = 1; d <= dim; ++d)
    if (dim % d == 0 && d <= s) best = d;
  return best;
}

// The orthonormal DCT-II of an h x w block and its inverse, by the definition (O(h^2 w^2),
// long double).
inline long double dct_basis(size_t n, size_t b, size_t j) {
  const long double pi = 3.141592653589793238462643383279502884L;
  return std::sqrt((b == 0 ? 1.0L : 2.0L) / n) * std::cos(pi * (2 * j + 1) * b / (2.0L * n));
}
inline std::vector<long double> dct_table(size_t n) {  // [b * n + j]
  std::vector<long double> t(n * n);
  for (size_t b = 0; b < n; ++b)
    for (size_t j = 0; j < n; ++j) t[b * n + j] = dct_basis(n, b, j);
  return t;
}
inline Vec dct_by_definition(size_t h, size_t w, const Vec& x) {
  const auto ch = dct_table(h), cw = dct_table(w);
  Vec X(h * w);
  for (size_t b = 0; b < h; ++b)
    for (size_t d = 0; d < w; ++d) {
      long double s = 0;
      for (size_t j = 0; j < h; ++j)
        for (size_t l = 0; l < w; ++l) s += x[j * w + l] * ch[b * h + j] * cw[d * w + l];
      X[b * w + d] = float(s);
    }
  return X;
}
inline Vec idct_by_definition(size_t h, size_t w, const Vec& X) {
  const auto ch = dct_table(h), cw = dct_table(w);
  Vec x(h * w);
  for (size_t j = 0; j < h; ++j)
    for (size_t l = 0; l < w; ++l) {
      long double s = 0;
      for (size_t b = 0; b < h; ++b)
        for (size_t d = 0; d < w; ++d) s += X[b * w + d] * ch[b * h + j] * cw[d * w + l];
      x[j * w + l] = float(s);
    }
  return x;
}

// m_n = beta m_n + g_n; per chunk: X = DCT(chunk of m_n), q = top min(k, hw) |X| (ties: the
// lower index), m_n -= IDCT(q); Gc = sum_n q_n in the coefficient space (offset + chunk index
// x h w + position in the chunk), added in rank order; Q = IDCT(Gc) / N per chunk.
struct DeMoRef {
  std::vector<Tensor2> layout;
  float beta;
  size_t s, k;
  ChunkTransform dct, idct;
  std::vector<Vec> mom;  // per node

  std::vector<Vec> step(const std::vector<Vec>& g) {
    const size_t N = g.size(), P = g[0].size();
    if (mom.empty()) mom.assign(N, Vec(P, 0.0f));
    for (size_t x = 0; x < N; ++x)
      for (size_t i = 0; i < P; ++i) mom[x][i] = beta * mom[x][i] + g[x][i];
    Vec Gc(P, 0.0f);
    std::vector<Vec> U = g;
    for (size_t x = 0; x < N; ++x)
      for_each_chunk([&](const Tensor2& w, size_t h, size_t cw, size_t y, size_t c, size_t base) {
        Vec block(h * cw);
        for (size_t j = 0; j < h; ++j)
          for (size_t l = 0; l < cw; ++l) block[j * cw + l] = at(mom[x], w, y * h + j, c * cw + l);
        const Vec X = dct(h, cw, block);
        std::vector<size_t> idx(h * cw);
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
          return std::fabs(X[a]) != std::fabs(X[b]) ? std::fabs(X[a]) > std::fabs(X[b]) : a < b;
        });
        Vec q(h * cw, 0.0f);
        for (size_t i = 0; i < std::min(k, idx.size()); ++i) q[idx[i]] = X[idx[i]];
        const Vec sent = idct(h, cw, q);
        for (size_t j = 0; j < h; ++j)
          for (size_t l = 0; l < cw; ++l) {
            float& v = mom[x][w.off + (y * h + j) * w.m + c * cw + l];
            v = v - sent[j * cw + l];
          }
        for (size_t i = 0; i < std::min(k, idx.size()); ++i) Gc[base + idx[i]] += X[idx[i]];
      });
    for_each_chunk([&](const Tensor2& w, size_t h, size_t cw, size_t y, size_t c, size_t base) {
      const Vec y_ = idct(h, cw, Vec(Gc.begin() + base, Gc.begin() + base + h * cw));
      for (size_t x = 0; x < N; ++x)
        for (size_t j = 0; j < h; ++j)
          for (size_t l = 0; l < cw; ++l)
            U[x][w.off + (y * h + j) * w.m + c * cw + l] = y_[j * cw + l] / float(N);
    });
    return U;
  }

  // f(tensor, h, w, chunk row, chunk col, coefficient base) for every chunk, in order.
  template <class F>
  void for_each_chunk(F f) const {
    for (const Tensor2& w : layout) {
      const size_t h = demo_chunk(w.n, s), cw = demo_chunk(w.m, s);
      for (size_t y = 0; y < w.n / h; ++y)
        for (size_t c = 0; c < w.m / cw; ++c)
          f(w, h, cw, y, c, w.off + (y * (w.m / cw) + c) * h * cw);
    }
  }
};

}  // namespace sl::ref
