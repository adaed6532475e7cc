#include "autograd/step_products.h"

#include <vector>

#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

// The steps' backwards copy x and dy into X and dY (row blocks in arrival order, so steps
// whose output never received a gradient leave no rows); the gather node then takes dW and db.
// Copying at once lets each dy's buffer go back to the allocator right after its step.
struct StepProducts::Shared {
  Var w, bias, gather;  // gather: the node whose backward takes dW and db
  int K = 0, N = 0;
  int64_t capacity = 0;  // rows of all steps applied so far
  int64_t filled = 0;    // rows that received a gradient
  Tensor X, dY;          // [capacity, K], [capacity, N], allocated at the first gradient
};

StepProducts::StepProducts(Graph& g, const Var& w, const Var& bias)
    : s_(std::make_shared<Shared>()) {
  if (w.shape().rank() != 2) shape_error("StepProducts", w.shape(), w.shape());
  if (bias.defined() && (bias.shape().rank() != 1 || bias.shape()[0] != w.shape()[1]))
    shape_error("StepProducts", w.shape(), bias.shape());
  s_->w = w;
  s_->bias = bias;
  s_->K = static_cast<int>(w.shape()[0]);
  s_->N = static_cast<int>(w.shape()[1]);
  const bool needs = w.requires_grad() || (bias.defined() && bias.requires_grad());
  s_->gather = g.op(g.empty(Shape{1}), needs, [keep = s_](const Tensor&) {
    Shared& s = *keep;
    if (s.filled == 0) return;
    Device& dev = s.w.graph().device();
    const int rows = static_cast<int>(s.filled);
    if (s.w.requires_grad()) {
      const auto dw = s.w.grad_slot();
      dev.gemm(true, false, s.K, s.N, rows, 1.0f, s.X.f32(), s.dY.f32(), dw.beta(), dw.data);
    }
    if (s.bias.defined() && s.bias.requires_grad())
      dev.sum_rows_acc(rows, s.N, s.dY.f32(), s.bias.grad().f32());
    s.X = Tensor();
    s.dY = Tensor();
  });
}

Var StepProducts::operator()(const Var& x) {
  Shared& s = *s_;
  const Shape& sx = x.shape();
  if (sx.rank() != 2 || sx[1] != s.K) shape_error("StepProducts", sx, s.w.shape());
  const int M = static_cast<int>(sx[0]), N = s.N, K = s.K;
  Graph& g = x.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape{M, N});
  float beta = 0.0f;
  if (s.bias.defined()) {  // every row preset to the bias, the product added onto it
    dev.copy_block(M, N, s.bias.value().f32(), 0, y.f32(), N, false);
    beta = 1.0f;
  }
  dev.gemm(false, false, M, N, K, 1.0f, x.value().f32(), s.w.value().f32(), beta, y.f32());
  s.capacity += M;
  const bool needs = x.requires_grad() || s.gather.requires_grad();
  return g.op(y, needs, [keep = s_, x, M, N, K, &dev](const Tensor& dy) {
    Shared& s = *keep;
    if (x.requires_grad()) {
      const auto dx = x.grad_slot();
      dev.gemm(false, true, M, K, N, 1.0f, dy.f32(), s.w.value().f32(), dx.beta(), dx.data);
    }
    if (!s.gather.requires_grad()) return;
    if (!s.X.defined()) {
      s.X = Tensor::empty(dev, Shape{s.capacity, K});
      s.dY = Tensor::empty(dev, Shape{s.capacity, N});
    }
    dev.copy_block(M, K, x.value().f32(), K, s.X.f32() + s.filled * K, K, false);
    dev.copy_block(M, N, dy.f32(), N, s.dY.f32() + s.filled * N, N, false);
    s.filled += M;
    s.gather.grad_slot();  // marks the gather node live, so the walk runs its backward
  });
}

}  // namespace sl::ops
