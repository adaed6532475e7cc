// Element-wise ops: sums, products, activations, per-row blends and dropout.
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {

size_t numel(const Var& v) { return static_cast<size_t>(v.value().numel()); }

// b broadcasts over a when b's dims are a's trailing dims (bias over rows).
bool is_trailing(const Shape& a, const Shape& b) {
  if (b.rank() > a.rank()) return false;
  for (int i = 1; i <= b.rank(); ++i)
    if (a[-i] != b[-i]) return false;
  return true;
}

Var unary_op(Unary kind, const Var& a) {
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(a.shape());
  dev.unary(kind, numel(a), a.value().f32(), y.f32());
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.unary_backward(kind, numel(a), a.value().f32(), y.f32(), dy.f32(), a.grad().f32());
  });
}

}  // namespace

Var add(const Var& a, const Var& b) {
  if (!is_trailing(a.shape(), b.shape())) shape_error("add", a.shape(), b.shape());
  Graph& g = a.graph();
  Device& dev = g.device();
  const int cols = static_cast<int>(b.value().numel());
  const int rows = cols == 0 ? 0 : static_cast<int>(a.value().numel() / cols);
  Tensor y = g.empty(a.shape());
  dev.add_bias(rows, cols, a.value().f32(), b.value().f32(), y.f32());
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    // b first: once a adopts dy's buffer, a later write to a's gradient would change dy.
    if (b.requires_grad()) {
      if (rows == 1) {
        const auto db = b.grad_slot();
        dev.axpby(numel(b), 1.0f, dy.f32(), db.beta(), db.data);
      } else
        dev.sum_rows_acc(rows, cols, dy.f32(), b.grad().f32());
    }
    if (a.requires_grad() && !a.adopt_grad(dy))
      dev.axpby(numel(a), 1.0f, dy.f32(), 1.0f, a.grad().f32());
  });
}

Var sub(const Var& a, const Var& b) {
  if (a.shape() != b.shape()) shape_error("sub", a.shape(), b.shape());
  Graph& g = a.graph();
  Device& dev = g.device();
  const size_t n = numel(a);
  Tensor y = g.empty(a.shape());
  dev.axpby(n, -1.0f, b.value().f32(), 0.0f, y.f32());
  dev.axpby(n, 1.0f, a.value().f32(), 1.0f, y.f32());
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    if (b.requires_grad()) {  // before a may adopt dy
      const auto db = b.grad_slot();
      dev.axpby(n, -1.0f, dy.f32(), db.beta(), db.data);
    }
    if (a.requires_grad() && !a.adopt_grad(dy)) dev.axpby(n, 1.0f, dy.f32(), 1.0f, a.grad().f32());
  });
}

Var mul(const Var& a, const Var& b) {
  if (a.shape() != b.shape()) shape_error("mul", a.shape(), b.shape());
  Graph& g = a.graph();
  Device& dev = g.device();
  const size_t n = numel(a);
  Tensor y = g.empty(a.shape());
  dev.mul(n, a.value().f32(), b.value().f32(), y.f32(), false);
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    if (a.requires_grad()) {
      const auto da = a.grad_slot();
      dev.mul(n, dy.f32(), b.value().f32(), da.data, da.accumulate());
    }
    if (b.requires_grad()) {
      const auto db = b.grad_slot();
      dev.mul(n, dy.f32(), a.value().f32(), db.data, db.accumulate());
    }
  });
}

Var scale(const Var& a, float s) {
  Graph& g = a.graph();
  Device& dev = g.device();
  const size_t n = numel(a);
  Tensor y = g.empty(a.shape());
  dev.axpby(n, s, a.value().f32(), 0.0f, y.f32());
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    const auto da = a.grad_slot();
    dev.axpby(n, s, dy.f32(), da.beta(), da.data);
  });
}

Var relu(const Var& a) { return unary_op(Unary::Relu, a); }
Var tanh(const Var& a) { return unary_op(Unary::Tanh, a); }
Var sigmoid(const Var& a) { return unary_op(Unary::Sigmoid, a); }

Var blend_rows(const Tensor& m, const Var& a, const Var& b) {
  if (a.shape() != b.shape()) shape_error("blend_rows", a.shape(), b.shape());
  if (m.numel() != a.shape().rows()) shape_error("blend_rows", m.shape(), a.shape());
  Graph& g = a.graph();
  Device& dev = g.device();
  const int rows = static_cast<int>(a.shape().rows()), cols = static_cast<int>(a.shape().cols());
  Tensor one_minus = g.empty(m.shape());
  dev.fill(static_cast<size_t>(rows), 1.0f, one_minus.f32());
  dev.axpby(static_cast<size_t>(rows), -1.0f, m.f32(), 1.0f, one_minus.f32());
  Tensor y = g.empty(a.shape());
  dev.mul_rows(rows, cols, a.value().f32(), m.f32(), y.f32(), false);
  dev.mul_rows(rows, cols, b.value().f32(), one_minus.f32(), y.f32(), true);
  return g.op(y, a.requires_grad() || b.requires_grad(), [=, &dev](const Tensor& dy) {
    if (a.requires_grad()) {
      const auto da = a.grad_slot();
      dev.mul_rows(rows, cols, dy.f32(), m.f32(), da.data, da.accumulate());
    }
    if (b.requires_grad()) {
      const auto db = b.grad_slot();
      dev.mul_rows(rows, cols, dy.f32(), one_minus.f32(), db.data, db.accumulate());
    }
  });
}

Var dropout(const Var& a, float p) {
  if (!(p >= 0.0f && p < 1.0f))
    throw std::invalid_argument("dropout: probability " + std::to_string(p) + " is outside [0, 1)");
  Graph& g = a.graph();
  if (!g.dropout_enabled() || p == 0.0f) return a;
  Device& dev = g.device();
  const size_t n = numel(a);
  Tensor mask = g.empty(a.shape());
  dev.dropout_mask(n, p, g.seed(), g.next_dropout_stream(), mask.f32());
  Tensor y = g.empty(a.shape());
  dev.mul(n, a.value().f32(), mask.f32(), y.f32(), false);
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    const auto da = a.grad_slot();
    dev.mul(n, dy.f32(), mask.f32(), da.data, da.accumulate());
  });
}

}  // namespace sl::ops
