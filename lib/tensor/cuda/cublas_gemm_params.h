#pragma once
#include <algorithm>

namespace sl {

// cuBLAS is column-major; our tensors are row-major. A row-major MxN matrix read as
// column-major is its transpose, so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T:
// cuBLAS gets B as its first operand and A as its second, with m and n swapped. This
// function holds exactly that bookkeeping, header-only so tests can check it on a machine
// without a GPU (by running the same column-major call through host cblas).
struct CublasGemmParams {
  bool trans_first;   // op flag for the first cuBLAS operand (our B)
  bool trans_second;  // op flag for the second cuBLAS operand (our A)
  int m, n, k;        // column-major sizes: m = N, n = M, k = K
  int ld_first;       // leading dimension of B as stored
  int ld_second;      // leading dimension of A as stored
  int ldc;            // leading dimension of C as stored (= N)
  long long stride_first, stride_second;  // batch strides of the operands (batched GEMM)
};

inline CublasGemmParams cublas_gemm_params(bool trans_a, bool trans_b, int M, int N, int K,
                                           long long stride_a = 0, long long stride_b = 0) {
  CublasGemmParams p;
  p.stride_first = stride_b;
  p.stride_second = stride_a;
  p.trans_first = trans_b;
  p.trans_second = trans_a;
  p.m = N;
  p.n = M;
  p.k = K;
  // Row-major leading dimensions of the stored matrices; cuBLAS rejects ld < 1 even when
  // the matrix is empty (K == 0), hence the max.
  p.ld_first = std::max(1, trans_b ? K : N);
  p.ld_second = std::max(1, trans_a ? M : K);
  p.ldc = std::max(1, N);
  return p;
}

}  // namespace sl
