#pragma once
#include <cstddef>

namespace sl {

// The dense products of PowerSGD on row-major matrices: M is n x m, P is n x r, Q is m x r.
// Every sum runs over its index in increasing order in double and is rounded to float once,
// so the arithmetic is fixed (the tests' reference writes the same sums as plain loops).

// P = M Q
void lowrank_mq(const float* M, size_t n, size_t m, const float* Q, size_t r, float* P);
// Q = M^T P
void lowrank_mtp(const float* M, size_t n, size_t m, const float* P, size_t r, float* Q);
// out[i][j] = (P Q^T)[i][j]
void lowrank_pqt(const float* P, size_t n, const float* Q, size_t m, size_t r, float* out);
// Orthonormalises the r columns of P (n x r) in place by modified Gram-Schmidt, as PyTorch's
// hook does: for c = 0..r-1, divide column c by its norm, then subtract its projection from
// columns c+1..r-1. A column of norm 0 (a vanishing gradient) becomes 0 instead of NaN.
void orthonormalise_columns(float* P, size_t n, size_t r);

}  // namespace sl
