// Reductions to scalars and the label-smoothed cross-entropy loss. Scalars have rank 0.
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {

// Per-row losses [R] (0 on pad rows); the softmax is kept for the backward.
Var cross_entropy_rows(const Var& logits, const Tensor& targets, float smoothing, int pad_id) {
  const Shape& s = logits.shape();
  const int R = static_cast<int>(s.rows()), V = static_cast<int>(s.cols());
  if (s.rank() < 1 || targets.dtype() != DType::I32 || targets.numel() != R)
    shape_error("cross_entropy", s, targets.shape());
  if (!(smoothing >= 0.0f && smoothing < 1.0f))
    throw std::invalid_argument("cross_entropy: label smoothing " + std::to_string(smoothing) +
                                " is outside [0, 1)");
  Graph& g = logits.graph();
  Device& dev = g.device();
  Tensor loss = g.empty(Shape{R});
  Tensor probs = g.empty(s);
  dev.cross_entropy(R, V, logits.value().f32(), targets.i32(), pad_id, smoothing, loss.f32(),
                    probs.f32());
  return g.op(loss, logits.requires_grad(), [=, &dev](const Tensor& dloss) {
    dev.cross_entropy_backward(R, V, probs.f32(), targets.i32(), pad_id, smoothing, dloss.f32(),
                               logits.grad().f32());
  });
}

}  // namespace

Var sum(const Var& a) {
  Graph& g = a.graph();
  Device& dev = g.device();
  const size_t n = static_cast<size_t>(a.value().numel());
  Tensor y = g.empty(Shape{});
  dev.reduce_sum(n, a.value().f32(), y.f32(), false);
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.broadcast_scalar_acc(n, 1.0f, dy.f32(), a.grad().f32());
  });
}

Var mean(const Var& a) {
  const int64_t n = a.value().numel();
  if (n == 0) throw std::invalid_argument("mean: empty tensor " + a.shape().str());
  return scale(sum(a), 1.0f / static_cast<float>(n));
}

Var cross_entropy(const Var& logits, const Tensor& targets, float smoothing, int pad_id) {
  return sum(cross_entropy_rows(logits, targets, smoothing, pad_id));
}

}  // namespace sl::ops
