#include "distributed/dct.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace sl {

DctBasis::DctBasis(size_t len) : n(len), C(len * len), Ct(len * len) {
  const double pi = std::acos(-1.0);
  for (size_t b = 0; b < n; ++b) {
    const double c = std::sqrt((b == 0 ? 1.0 : 2.0) / static_cast<double>(n));
    for (size_t j = 0; j < n; ++j) {
      const float v =
          static_cast<float>(c * std::cos(pi * static_cast<double>(2 * j + 1) *
                                          static_cast<double>(b) / (2.0 * static_cast<double>(n))));
      C[b * n + j] = v;
      Ct[j * n + b] = v;
    }
  }
}

size_t dct_chunk_length(size_t dim, size_t s) {
  if (dim <= s) return dim;
  for (size_t c = s; c > 1; --c)
    if (dim % c == 0) return c;
  return 1;
}

namespace {

// Each stage of the transforms makes an output row as a combination of rows:
//   out[l] = sum_i a[i] * rows[i][l],  i = 0..n-1 in order, float, starting from +0.
// The inverse leaves out terms known to be +-0 (the rows and columns where X is all zero):
// they never change a sum that starts at +0 (+0 + -0 = +0), so every result equals the dense
// sum bit for bit. The accumulators of up to 64 columns stay in registers across i (GCC
// vector extensions: one multiply and one add per lane, as the scalar loop; -ffp-contract=off
// keeps them apart), so each element still sums in order.
typedef float v8 __attribute__((vector_size(32)));

inline v8 load8(const float* p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <size_t kVecs>
void combine_block(size_t n, const float* a, const float* const* rows, size_t l0, float* out) {
  v8 acc[kVecs] = {};
  for (size_t i = 0; i < n; ++i) {
    const v8 ai = v8{} + a[i];
    const float* r = rows[i] + l0;
    for (size_t q = 0; q < kVecs; ++q) acc[q] += ai * load8(r + 8 * q);
  }
  std::memcpy(out + l0, acc, sizeof acc);
}

void combine_rows(size_t n, const float* a, const float* const* rows, size_t w, float* out) {
  size_t l0 = 0;
  for (; l0 + 64 <= w; l0 += 64) combine_block<8>(n, a, rows, l0, out);
  for (; l0 + 8 <= w; l0 += 8) combine_block<1>(n, a, rows, l0, out);
  for (; l0 < w; ++l0) {
    float acc = 0.0f;
    for (size_t i = 0; i < n; ++i) acc += a[i] * rows[i][l0];
    out[l0] = acc;
  }
}

thread_local std::vector<float> t_a;
thread_local std::vector<const float*> t_rows;
thread_local std::vector<size_t> t_live;

}  // namespace

void dct2(const DctBasis& bh, const DctBasis& bw, const float* x, float* X, float* T) {
  const size_t h = bh.n, w = bw.n;
  // T[j][d] = sum_l x[j][l] C_w[d][l]: row j of T combines the rows l of C_w^T.
  t_rows.resize(std::max(h, w));
  for (size_t l = 0; l < w; ++l) t_rows[l] = bw.Ct.data() + l * w;
  for (size_t j = 0; j < h; ++j) combine_rows(w, x + j * w, t_rows.data(), w, T + j * w);
  // X[b][d] = sum_j C_h[b][j] T[j][d]
  for (size_t j = 0; j < h; ++j) t_rows[j] = T + j * w;
  for (size_t b = 0; b < h; ++b) combine_rows(h, bh.C.data() + b * h, t_rows.data(), w, X + b * w);
}

void idct2(const DctBasis& bh, const DctBasis& bw, const float* X, float* x, float* U) {
  const size_t h = bh.n, w = bw.n;
  // U[j][d] = sum_b C_h[b][j] X[b][d], over the rows of X that are not all zero
  t_rows.clear();
  t_live.clear();
  for (size_t b = 0; b < h; ++b)
    if (!std::all_of(X + b * w, X + (b + 1) * w, [](float v) { return v == 0.0f; })) {
      t_live.push_back(b);
      t_rows.push_back(X + b * w);
    }
  t_a.resize(std::max(h, w));
  for (size_t j = 0; j < h; ++j) {
    for (size_t i = 0; i < t_live.size(); ++i) t_a[i] = bh.C[t_live[i] * h + j];
    combine_rows(t_live.size(), t_a.data(), t_rows.data(), w, U + j * w);
  }
  // x[j][l] = sum_d U[j][d] C_w[d][l], over the columns d where X (so U) is not all zero
  t_live.clear();
  t_rows.clear();
  for (size_t d = 0; d < w; ++d) {
    bool any = false;
    for (size_t b = 0; b < h && !any; ++b) any = X[b * w + d] != 0.0f;
    if (any) {
      t_live.push_back(d);
      t_rows.push_back(bw.C.data() + d * w);
    }
  }
  for (size_t j = 0; j < h; ++j) {
    for (size_t i = 0; i < t_live.size(); ++i) t_a[i] = U[j * w + t_live[i]];
    combine_rows(t_live.size(), t_a.data(), t_rows.data(), w, x + j * w);
  }
}

}  // namespace sl
