#pragma once
#include <cstddef>
#include <vector>

namespace sl {

// DeMo's transform (Peng, Quesnelle, Kingma 2024): the orthonormal DCT-II of chunks of a
// tensor. C_n[b][j] = c_b cos(pi (2j + 1) b / (2n)), c_0 = sqrt(1/n), c_b = sqrt(2/n) for
// b > 0 (computed in double, stored as float); C_n C_n^T = I.
struct DctBasis {
  explicit DctBasis(size_t n);
  size_t n;
  std::vector<float> C;   // C[b * n + j]
  std::vector<float> Ct;  // Ct[j * n + b] = C[b * n + j]
};

// The chunk length DeMo's reference code (TransformDCT, _get_smaller_split) uses for a
// dimension of `dim` elements and target s: the largest divisor of dim that is <= s (dim
// itself when dim <= s). Every chunk then has the same size and no padding is needed; a
// prime dim > s gets chunks of 1 along it (and its coefficients are then sent nearly dense).
size_t dct_chunk_length(size_t dim, size_t s);

// The 2-D transform of one h x w chunk (row-major, contiguous), X = C_h x C_w^T, separable:
// T = x C_w^T (sums over l in order), then X = C_h T (sums over j in order), float sums.
// `scratch` holds >= h * w floats. A vector chunk is h x 1 (C_1 = [1]).
void dct2(const DctBasis& bh, const DctBasis& bw, const float* x, float* X, float* scratch);
// The inverse, x = C_h^T X C_w (U = C_h^T X summing over b in order, then x = U C_w over d).
// Rows and columns of X that are all zero are skipped: their terms are +-0, which never
// change a float sum that starts at +0, so the result equals the dense computation bit for
// bit (and a sparse X, as DeMo's q_n, costs little).
void idct2(const DctBasis& bh, const DctBasis& bw, const float* X, float* x, float* scratch);

}  // namespace sl
