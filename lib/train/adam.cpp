#include "train/adam.h"

#include <cmath>

namespace sl {

Adam::Adam(Device& dev, size_t P, const AdamConfig& cfg)
    : dev_(dev),
      cfg_(cfg),
      m_(Tensor::zeros(dev, Shape{static_cast<int64_t>(P)})),
      v_(Tensor::zeros(dev, Shape{static_cast<int64_t>(P)})) {}

void Adam::step(const Tensor& params, const Tensor& grads, float lr) {
  ++t_;
  // Bias correction folded into the step size and epsilon (Kingma & Ba, section 2):
  //   p -= lr * mhat / (sqrt(vhat) + eps)  ==  p -= lr_t * m / (sqrt(v) + eps_t)
  const double c1 = 1.0 - std::pow(static_cast<double>(cfg_.beta1), static_cast<double>(t_));
  const double c2 = 1.0 - std::pow(static_cast<double>(cfg_.beta2), static_cast<double>(t_));
  const float lr_t = static_cast<float>(lr * std::sqrt(c2) / c1);
  const float eps_t = static_cast<float>(cfg_.eps * std::sqrt(c2));
  dev_.adam_update(static_cast<size_t>(params.numel()), lr_t, cfg_.beta1, cfg_.beta2, eps_t,
                   grads.f32(), m_.f32(), v_.f32(), params.f32());
}

}  // namespace sl
