#pragma once
#include <cstddef>

#include "train/optimizer.h"

namespace sl {

// Plain descent with decoupled weight decay lambda (as DeMo's reference optimizer applies
// it: the parameters shrink by lr lambda before the step), on sign(U) or on U itself:
//   sign: theta <- theta (1 - lr lambda) - lr sign(U)     (sign(0) = 0, sign(NaN) = NaN)
//   sgd:  theta <- theta (1 - lr lambda) - lr U
// No state. On a CUDA device the buffers go through the host (no device kernel for it).
class SignDescent : public Optimizer {
 public:
  SignDescent(bool sign, float weight_decay) : sign_(sign), wd_(weight_decay) {}
  void step(const Tensor& params, const Tensor& grads, float lr) override;
  // The same on host arrays (step() calls it; the tests too).
  void step_host(float* params, const float* grads, size_t P, float lr) const;

 private:
  bool sign_;
  float wd_;
};

}  // namespace sl
