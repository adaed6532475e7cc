#include "distributed/outer_optimizer.h"

#include <cmath>
#include <cstring>

namespace sl {

OuterOptimizer::OuterOptimizer(size_t P, const DiLoCoConfig& c)
    : P_(P),
      lr_(static_cast<float>(c.outer_lr)),
      mu_(static_cast<float>(c.outer_momentum)),
      nesterov_(c.nesterov),
      anchor_(P, 0.0f),
      b_(P, 0.0f) {}

void OuterOptimizer::start(const float* theta0) {
  if (P_) std::memcpy(anchor_.data(), theta0, P_ * sizeof(float));
}

void OuterOptimizer::step(float* params, StepStats& stats) {
  const bool identity = is_identity();
  double norm2 = 0;
  for (size_t i = 0; i < P_; ++i) {
    const float delta = anchor_[i] - params[i];
    norm2 += static_cast<double>(delta) * delta;
    b_[i] = mu_ * b_[i] + delta;
    const float update = nesterov_ ? delta + mu_ * b_[i] : b_[i];
    if (!identity) params[i] = anchor_[i] - lr_ * update;
    anchor_[i] = params[i];
  }
  stats.outer_delta_norm = std::sqrt(norm2);
}

void OuterOptimizer::state(std::vector<StateBuffer>& out) {
  out.push_back({"diloco_anchor", anchor_.data(), anchor_.size()});
  out.push_back({"diloco_momentum", b_.data(), b_.size()});
}

}  // namespace sl
