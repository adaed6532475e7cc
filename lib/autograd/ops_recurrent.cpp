// Recurrent cells built on the fused GRU kernels.
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

}  // namespace sl::ops
