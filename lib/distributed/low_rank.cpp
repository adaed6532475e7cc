#include "distributed/low_rank.h"

#include <cmath>
#include <vector>

namespace sl {

namespace {
// A float factor widened to double once (exact), so the loops below convert nothing.
thread_local std::vector<double> t_wide;
const double* widen(const float* x, size_t n) {
  t_wide.resize(n);
  for (size_t i = 0; i < n; ++i) t_wide[i] = x[i];
  return t_wide.data();
}
}  // namespace

void lowrank_mq(const float* M, size_t n, size_t m, const float* Q, size_t r, float* P) {
  const double* q = widen(Q, m * r);
  std::vector<double> acc(r);
  for (size_t i = 0; i < n; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    const float* row = M + i * m;
    for (size_t j = 0; j < m; ++j) {
      const double x = row[j];
      for (size_t c = 0; c < r; ++c) acc[c] += x * q[j * r + c];
    }
    for (size_t c = 0; c < r; ++c) P[i * r + c] = static_cast<float>(acc[c]);
  }
}

void lowrank_mtp(const float* M, size_t n, size_t m, const float* P, size_t r, float* Q) {
  // Row by row of M, so M is read once in order; acc[j][c] still sums over i in order.
  std::vector<double> acc(m * r, 0.0), p(r);
  for (size_t i = 0; i < n; ++i) {
    const float* row = M + i * m;
    for (size_t c = 0; c < r; ++c) p[c] = P[i * r + c];
    for (size_t j = 0; j < m; ++j) {
      const double x = row[j];
      for (size_t c = 0; c < r; ++c) acc[j * r + c] += x * p[c];
    }
  }
  for (size_t k = 0; k < m * r; ++k) Q[k] = static_cast<float>(acc[k]);
}

void lowrank_pqt(const float* P, size_t n, const float* Q, size_t m, size_t r, float* out) {
  const double* q = widen(Q, m * r);
  std::vector<double> p(r);
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = 0; c < r; ++c) p[c] = P[i * r + c];
    for (size_t j = 0; j < m; ++j) {
      double s = 0;
      for (size_t c = 0; c < r; ++c) s += p[c] * q[j * r + c];
      out[i * m + j] = static_cast<float>(s);
    }
  }
}

void orthonormalise_columns(float* P, size_t n, size_t r) {
  for (size_t c = 0; c < r; ++c) {
    double norm2 = 0;
    for (size_t i = 0; i < n; ++i) norm2 += static_cast<double>(P[i * r + c]) * P[i * r + c];
    const double norm = std::sqrt(norm2);
    for (size_t i = 0; i < n; ++i)
      P[i * r + c] = norm > 0 ? static_cast<float>(P[i * r + c] / norm) : 0.0f;
    for (size_t c2 = c + 1; c2 < r; ++c2) {
      double dot = 0;
      for (size_t i = 0; i < n; ++i) dot += static_cast<double>(P[i * r + c]) * P[i * r + c2];
      for (size_t i = 0; i < n; ++i)
        P[i * r + c2] = static_cast<float>(P[i * r + c2] - dot * P[i * r + c]);
    }
  }
}

}  // namespace sl
