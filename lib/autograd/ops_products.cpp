#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {

struct ProductDims {
  int M, N, K;
  std::vector<int64_t> out_dims;
};

ProductDims product_dims(const char* op, const Shape& sa, const Shape& sb, bool trans_b) {
  if (sb.rank() != 2) shape_error(op, sa, sb);
  ProductDims d;
  d.K = static_cast<int>(sa.cols());
  d.M = static_cast<int>(sa.rows());
  d.N = static_cast<int>(trans_b ? sb[0] : sb[1]);
  if ((trans_b ? sb[1] : sb[0]) != d.K) shape_error(op, sa, sb);
  d.out_dims = sa.dims();
  d.out_dims.back() = d.N;
  return d;
}

// dA = dY op(B)^T and dB = A^T dY (or dY^T A when B is stored [N, K]).
void product_backward(Device& dev, const Var& a, const Var& b, bool trans_b, int M, int N, int K,
                      const Tensor& dy) {
  if (a.requires_grad()) {
    const auto da = a.grad_slot();
    dev.gemm(false, !trans_b, M, K, N, 1.0f, dy.f32(), b.value().f32(), da.beta(), da.data);
  }
  if (b.requires_grad()) {
    const auto db = b.grad_slot();
    if (trans_b)
      dev.gemm(true, false, N, K, M, 1.0f, dy.f32(), a.value().f32(), db.beta(), db.data);
    else
      dev.gemm(true, false, K, N, M, 1.0f, a.value().f32(), dy.f32(), db.beta(), db.data);
  }
}

}  // namespace

Var matmul(const Var& a, const Var& b, bool trans_b) {
  const ProductDims d = product_dims("matmul", a.shape(), b.shape(), trans_b);
  const int M = d.M, N = d.N, K = d.K;
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape(d.out_dims));
  dev.gemm(false, trans_b, M, N, K, 1.0f, a.value().f32(), b.value().f32(), 0.0f, y.f32());
  return g.op(y, a.requires_grad() || b.requires_grad(),
              [=, &dev](const Tensor& dy) { product_backward(dev, a, b, trans_b, M, N, K, dy); });
}

Var linear(const Var& a, const Var& w, const Var& bias, bool trans_b) {
  const ProductDims d = product_dims("linear", a.shape(), w.shape(), trans_b);
  const int M = d.M, N = d.N, K = d.K;
  if (bias.shape().rank() != 1 || bias.shape()[0] != N)
    shape_error("linear", w.shape(), bias.shape());
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape(d.out_dims));
  dev.copy_block(M, N, bias.value().f32(), /*src_ld=*/0, y.f32(), N, false);  // every row = bias
  dev.gemm(false, trans_b, M, N, K, 1.0f, a.value().f32(), w.value().f32(), 1.0f, y.f32());
  const bool needs = a.requires_grad() || w.requires_grad() || bias.requires_grad();
  return g.op(y, needs, [=, &dev](const Tensor& dy) {
    if (bias.requires_grad()) {
      if (M == 1) {
        const auto db = bias.grad_slot();
        dev.axpby(static_cast<size_t>(N), 1.0f, dy.f32(), db.beta(), db.data);
      } else {
        dev.sum_rows_acc(M, N, dy.f32(), bias.grad().f32());
      }
    }
    product_backward(dev, a, w, trans_b, M, N, K, dy);
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
