// Recurrent models' fused ops: the GRU cell and additive attention's scores.
#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

Var gru_cell(const Var& xw, const Var& hu, const Var& h_prev) {
  const Shape& sh = h_prev.shape();
  if (sh.rank() != 2) shape_error("gru_cell", xw.shape(), sh);
  const int B = static_cast<int>(sh[0]), H = static_cast<int>(sh[1]);
  const Shape gates{B, 3 * static_cast<int64_t>(H)};
  if (xw.shape() != gates) shape_error("gru_cell", xw.shape(), sh);
  if (hu.shape() != gates) shape_error("gru_cell", hu.shape(), sh);
  Graph& g = xw.graph();
  Device& dev = g.device();
  Tensor h = g.empty(sh);
  Tensor cache = g.empty(Shape{B, 4 * static_cast<int64_t>(H)});
  dev.gru_cell(B, H, xw.value().f32(), hu.value().f32(), h_prev.value().f32(), h.f32(),
               cache.f32());
  const bool any = xw.requires_grad() || hu.requires_grad() || h_prev.requires_grad();
  return g.op(h, any, [=, &dev, &g](const Tensor& dh) {
    // The kernel produces all three gradients; inputs without one get a scratch buffer.
    Tensor dxw = xw.requires_grad() ? xw.grad() : g.zeros(xw.shape());
    Tensor dhu = hu.requires_grad() ? hu.grad() : g.zeros(hu.shape());
    Tensor dhp = h_prev.requires_grad() ? h_prev.grad() : g.zeros(sh);
    dev.gru_cell_backward(B, H, h_prev.value().f32(), cache.f32(), dh.f32(), dxw.f32(), dhu.f32(),
                          dhp.f32());
  });
}

Var additive_attention_scores(const Var& keys, const Var& q, const Var& v) {
  const Shape& sk = keys.shape();
  if (sk.rank() != 3) shape_error("additive_attention_scores", sk, q.shape());
  const int B = static_cast<int>(sk[0]), S = static_cast<int>(sk[1]), A = static_cast<int>(sk[2]);
  if (q.shape() != Shape{B, A}) shape_error("additive_attention_scores", sk, q.shape());
  if (v.shape() != Shape{A, 1}) shape_error("additive_attention_scores", sk, v.shape());
  Graph& g = keys.graph();
  Device& dev = g.device();
  const int R = B * S;
  Tensor t = g.empty(sk);
  dev.tanh_add_rows(B, S, A, keys.value().f32(), q.value().f32(), t.f32());
  Tensor y = g.empty(Shape{B, S, 1});
  // The same product (and so the same bits) as matmul(t, v).
  dev.gemm(false, false, R, 1, A, 1.0f, t.f32(), v.value().f32(), 0.0f, y.f32());
  const bool any = keys.requires_grad() || q.requires_grad() || v.requires_grad();
  return g.op(y, any, [=, &dev](const Tensor& dy) {
    if (keys.requires_grad() || q.requires_grad()) {
      Var::GradSlot dk{nullptr, true}, dq{nullptr, true};
      if (keys.requires_grad()) dk = keys.grad_slot();
      if (q.requires_grad()) dq = q.grad_slot();
      dev.tanh_add_rows_backward(B, S, A, t.f32(), dy.f32(), v.value().f32(), dk.data,
                                 dk.accumulate(), dq.data, dq.accumulate());
    }
    if (v.requires_grad()) {  // dv = t^T dscores, as matmul's backward computes it
      const auto dv = v.grad_slot();
      dev.gemm(true, false, A, 1, R, 1.0f, t.f32(), dy.f32(), dv.beta(), dv.data);
    }
  });
}

}  // namespace sl::ops
