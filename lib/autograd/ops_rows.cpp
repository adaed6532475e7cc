// Last-axis normalisations: softmax, log-softmax, layer norm and masked attention softmax.
#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {
int rows_of(const Var& a) { return static_cast<int>(a.shape().rows()); }
int cols_of(const Var& a) { return static_cast<int>(a.shape().cols()); }
}  // namespace

Var softmax(const Var& a) {
  Graph& g = a.graph();
  Device& dev = g.device();
  const int R = rows_of(a), C = cols_of(a);
  Tensor y = g.empty(a.shape());
  dev.softmax(R, C, a.value().f32(), y.f32());
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.softmax_backward(R, C, y.f32(), dy.f32(), a.grad().f32());
  });
}

Var log_softmax(const Var& a) {
  Graph& g = a.graph();
  Device& dev = g.device();
  const int R = rows_of(a), C = cols_of(a);
  Tensor y = g.empty(a.shape());
  dev.log_softmax(R, C, a.value().f32(), y.f32());
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.log_softmax_backward(R, C, y.f32(), dy.f32(), a.grad().f32());
  });
}

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps) {
  const int R = rows_of(x), C = cols_of(x);
  if (gamma.shape() != Shape{C}) shape_error("layer_norm", x.shape(), gamma.shape());
  if (beta.shape() != Shape{C}) shape_error("layer_norm", x.shape(), beta.shape());
  Graph& g = x.graph();
  Device& dev = g.device();
  Tensor y = g.empty(x.shape());
  Tensor mean = g.empty(Shape{R}), rstd = g.empty(Shape{R});
  dev.layer_norm(R, C, eps, x.value().f32(), gamma.value().f32(), beta.value().f32(), y.f32(),
                 mean.f32(), rstd.f32());
  const bool any = x.requires_grad() || gamma.requires_grad() || beta.requires_grad();
  return g.op(y, any, [=, &dev, &g](const Tensor& dy) {
    // The kernel produces all three gradients; inputs without one get a scratch buffer.
    Tensor dx = x.requires_grad() ? x.grad() : g.zeros(x.shape());
    Tensor dg = gamma.requires_grad() ? gamma.grad() : g.zeros(gamma.shape());
    Tensor db = beta.requires_grad() ? beta.grad() : g.zeros(beta.shape());
    dev.layer_norm_backward(R, C, x.value().f32(), gamma.value().f32(), mean.f32(), rstd.f32(),
                            dy.f32(), dx.f32(), dg.f32(), db.f32());
  });
}

Var attention_softmax(const Var& scores, const Tensor& key_lengths, bool causal) {
  const Shape& s = scores.shape();
  if (s.rank() != 4 ||
      (key_lengths.defined() && (key_lengths.dtype() != DType::I32 || key_lengths.numel() != s[0])))
    shape_error("attention_softmax", s, key_lengths.shape());
  const int B = static_cast<int>(s[0]), H = static_cast<int>(s[1]), Tq = static_cast<int>(s[2]),
            Tk = static_cast<int>(s[3]);
  Graph& g = scores.graph();
  Device& dev = g.device();
  Tensor masked = g.empty(s), y = g.empty(s);
  masked.copy_from(scores.value());
  dev.attention_mask(B, H, Tq, Tk, key_lengths.defined() ? key_lengths.i32() : nullptr, causal,
                     masked.f32());
  dev.softmax(B * H * Tq, Tk, masked.f32(), y.f32());
  // Masked scores were replaced by a constant: their weight is 0, and so their gradient.
  return g.op(y, scores.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.softmax_backward(B * H * Tq, Tk, y.f32(), dy.f32(), scores.grad().f32());
  });
}

}  // namespace sl::ops
