#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

Var matmul(const Var& a, const Var& b, bool trans_b) {
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sb.rank() != 2) shape_error("matmul", sa, sb);
  const int K = static_cast<int>(sa.cols());
  const int M = static_cast<int>(sa.rows());
  const int N = static_cast<int>(trans_b ? sb[0] : sb[1]);
  if ((trans_b ? sb[1] : sb[0]) != K) shape_error("matmul", sa, sb);
  std::vector<int64_t> dims = sa.dims();
  dims.back() = N;
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape(dims));
  dev.gemm(false, trans_b, M, N, K, 1.0f, a.value().f32(), b.value().f32(), 0.0f, y.f32());
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    if (a.requires_grad()) {  // dA = dY op(B)^T
      const auto da = a.grad_slot();
      dev.gemm(false, !trans_b, M, K, N, 1.0f, dy.f32(), b.value().f32(), da.beta(), da.data);
    }
    if (b.requires_grad()) {
      const auto db = b.grad_slot();
      if (trans_b)  // B is [N,K]: dB = dY^T A
        dev.gemm(true, false, N, K, M, 1.0f, dy.f32(), a.value().f32(), db.beta(), db.data);
      else  // dB = A^T dY
        dev.gemm(true, false, K, N, M, 1.0f, a.value().f32(), dy.f32(), db.beta(), db.data);
    }
  });
}

Var bmm(const Var& a, const Var& b, bool trans_a, bool trans_b) {
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.rank() < 2 || sa.rank() != sb.rank()) shape_error("bmm", sa, sb);
  for (int i = 0; i + 2 < sa.rank(); ++i)
    if (sa[i] != sb[i]) shape_error("bmm", sa, sb);
  // Stored A is [M, K] (or [K, M] when trans_a), stored B is [K, N] (or [N, K]).
  const int M = static_cast<int>(trans_a ? sa[-1] : sa[-2]);
  const int K = static_cast<int>(trans_a ? sa[-2] : sa[-1]);
  const int N = static_cast<int>(trans_b ? sb[-2] : sb[-1]);
  if ((trans_b ? sb[-1] : sb[-2]) != K) shape_error("bmm", sa, sb);
  const int batch = static_cast<int>(sa.numel() / (static_cast<int64_t>(M) * K));
  const int64_t st_a = static_cast<int64_t>(M) * K, st_b = static_cast<int64_t>(K) * N,
                st_c = static_cast<int64_t>(M) * N;
  std::vector<int64_t> dims = sa.dims();
  dims[dims.size() - 2] = M;
  dims.back() = N;
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape(dims));
  dev.gemm_batched(trans_a, trans_b, M, N, K, 1.0f, a.value().f32(), st_a, b.value().f32(), st_b,
                   0.0f, y.f32(), st_c, batch);
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    const float* A = a.value().f32();
    const float* B = b.value().f32();
    if (a.requires_grad()) {
      const auto da = a.grad_slot();
      if (trans_a)  // dA = op(B) dC^T   [K, M]
        dev.gemm_batched(trans_b, true, K, M, N, 1.0f, B, st_b, dy.f32(), st_c, da.beta(), da.data,
                         st_a, batch);
      else  // dA = dC op(B)^T   [M, K]
        dev.gemm_batched(false, !trans_b, M, K, N, 1.0f, dy.f32(), st_c, B, st_b, da.beta(),
                         da.data, st_a, batch);
    }
    if (b.requires_grad()) {
      const auto db = b.grad_slot();
      if (trans_b)  // dB = dC^T op(A)   [N, K]
        dev.gemm_batched(true, trans_a, N, K, M, 1.0f, dy.f32(), st_c, A, st_a, db.beta(), db.data,
                         st_b, batch);
      else  // dB = op(A)^T dC   [K, N]
        dev.gemm_batched(!trans_a, false, K, N, M, 1.0f, A, st_a, dy.f32(), st_c, db.beta(),
                         db.data, st_b, batch);
    }
  });
}

}  // namespace sl::ops
