#include "train/sign_descent.h"

#include <vector>

namespace sl {

void SignDescent::step_host(float* params, const float* grads, size_t P, float lr) const {
  const float keep = 1.0f - lr * wd_;
  if (!sign_) {
    for (size_t i = 0; i < P; ++i) params[i] = params[i] * keep - lr * grads[i];
    return;
  }
  // sign(u) as (u > 0) - (u < 0), which vectorises; u itself where that is 0 (+-0, NaN).
  for (size_t i = 0; i < P; ++i) {
    const float u = grads[i];
    const float s = static_cast<float>((u > 0.0f) - (u < 0.0f));
    params[i] = params[i] * keep - lr * (s != 0.0f ? s : u);
  }
}

void SignDescent::step(const Tensor& params, const Tensor& grads, float lr) {
  const size_t P = static_cast<size_t>(params.numel());
  if (!params.device().is_cuda()) return step_host(params.f32(), grads.f32(), P, lr);
  std::vector<float> p = params.to_host(), g = grads.to_host();
  step_host(p.data(), g.data(), P, lr);
  params.device().from_host(params.f32(), p.data(), P * sizeof(float));
}

}  // namespace sl
