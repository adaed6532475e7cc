// Attention's per-head products read and write [B, T, heads * Dh] activations in place: the
// heads are matrices of a MatrixGrid (Device::gemm_grid), so no split / merge copies are made
// in either direction. Each product is the call bmm makes on the split copies (same
// transposes, sizes and beta), so the bits equal split_heads + bmm + merge_heads.
#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {

struct HeadDims {
  int B, T, S, H, Dh;
};

// Head h of batch row b of a [B, rows, H * Dh] activation.
MatrixGrid heads_grid(int rows, int H, int Dh) {
  return {static_cast<int64_t>(rows) * H * Dh, Dh, H * Dh};
}

// Matrix (b, h) of a [B, H, rows, cols] tensor.
MatrixGrid blocks_grid(int H, int rows, int cols) {
  return {static_cast<int64_t>(H) * rows * cols, static_cast<int64_t>(rows) * cols, cols};
}

void check_activation(const char* op, const Shape& x, const Shape& other, int heads) {
  if (x.rank() != 3 || heads < 1 || x[2] % heads != 0) shape_error(op, x, other);
}

}  // namespace

Var head_scores(const Var& q, const Var& k, int heads) {
  const Shape& sq = q.shape();
  const Shape& sk = k.shape();
  check_activation("head_scores", sq, sk, heads);
  check_activation("head_scores", sk, sq, heads);
  if (sq[0] != sk[0] || sq[2] != sk[2]) shape_error("head_scores", sq, sk);
  const HeadDims d{static_cast<int>(sq[0]), static_cast<int>(sq[1]), static_cast<int>(sk[1]),
                   heads, static_cast<int>(sq[2] / heads)};
  const MatrixGrid gq = heads_grid(d.T, d.H, d.Dh), gk = heads_grid(d.S, d.H, d.Dh),
                   gs = blocks_grid(d.H, d.T, d.S);
  Graph& g = q.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape{d.B, d.H, d.T, d.S});
  // scores = q k^T per head: bmm(q, k, false, true)
  dev.gemm_grid(false, true, d.T, d.S, d.Dh, 1.0f, q.value().f32(), gq, k.value().f32(), gk, 0.0f,
                y.f32(), gs, d.B, d.H);
  return g.op(y, q.requires_grad() || k.requires_grad(), [=, &dev](const Tensor& dy) {
    if (q.requires_grad()) {  // dq = dS k
      const auto dq = q.grad_slot();
      dev.gemm_grid(false, false, d.T, d.Dh, d.S, 1.0f, dy.f32(), gs, k.value().f32(), gk,
                    dq.beta(), dq.data, gq, d.B, d.H);
    }
    if (k.requires_grad()) {  // dk = dS^T q
      const auto dk = k.grad_slot();
      dev.gemm_grid(true, false, d.S, d.Dh, d.T, 1.0f, dy.f32(), gs, q.value().f32(), gq,
                    dk.beta(), dk.data, gk, d.B, d.H);
    }
  });
}

Var head_context(const Var& w, const Var& v, int heads) {
  const Shape& sw = w.shape();
  const Shape& sv = v.shape();
  check_activation("head_context", sv, sw, heads);
  if (sw.rank() != 4 || sw[0] != sv[0] || sw[1] != heads || sw[3] != sv[1])
    shape_error("head_context", sw, sv);
  const HeadDims d{static_cast<int>(sw[0]), static_cast<int>(sw[2]), static_cast<int>(sv[1]),
                   heads, static_cast<int>(sv[2] / heads)};
  const MatrixGrid gw = blocks_grid(d.H, d.T, d.S), gv = heads_grid(d.S, d.H, d.Dh),
                   gy = heads_grid(d.T, d.H, d.Dh);
  Graph& g = w.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape{d.B, d.T, static_cast<int64_t>(d.H) * d.Dh});
  // context = w v per head, written into its columns of the merged [B, T, H * Dh]: bmm(w, v)
  dev.gemm_grid(false, false, d.T, d.Dh, d.S, 1.0f, w.value().f32(), gw, v.value().f32(), gv,
                0.0f, y.f32(), gy, d.B, d.H);
  return g.op(y, w.requires_grad() || v.requires_grad(), [=, &dev](const Tensor& dy) {
    if (w.requires_grad()) {  // dw = dC v^T
      const auto dw = w.grad_slot();
      dev.gemm_grid(false, true, d.T, d.S, d.Dh, 1.0f, dy.f32(), gy, v.value().f32(), gv,
                    dw.beta(), dw.data, gw, d.B, d.H);
    }
    if (v.requires_grad()) {  // dv = w^T dC
      const auto dv = v.grad_slot();
      dev.gemm_grid(true, false, d.S, d.Dh, d.T, 1.0f, w.value().f32(), gw, dy.f32(), gy,
                    dv.beta(), dv.data, gv, d.B, d.H);
    }
  });
}

}  // namespace sl::ops
