#pragma once
#include <memory>

#include "autograd/graph.h"

namespace sl::ops {

// x W (+ b) applied at every time step of a recurrence, with W's and b's gradients taken ONCE
// over all steps. Per step, the backward computes only dx = dy W^T; it keeps x and dy, and the
// weight gradient is then one product dW = X^T dY with K = steps x rows (and db the column sums
// of dY) instead of one product per step with K = rows (64 for a batch of 64 sentences). A
// product with so short a K runs well below the GEMM's peak and reads and writes all of dW
// each time; the RNN's decoder did 24 of them per weight and batch.
//
// Construct it before the steps: its node is then recorded on the tape before theirs, so the
// reverse walk reaches it after every step's backward. Mathematically the same gradients as
// linear(x, W, b) at each step; in floats the sum over steps is taken in another order.
class StepProducts {
 public:
  // `bias` may be undefined (no bias). `w` is [K, N].
  StepProducts(Graph& g, const Var& w, const Var& bias);
  // x [rows, K] -> x W + b [rows, N]
  Var operator()(const Var& x);

 private:
  struct Shared;
  std::shared_ptr<Shared> s_;
};

}  // namespace sl::ops
