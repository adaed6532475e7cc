#pragma once
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace sl {

struct TrainConfig;

// The update rule theta_n <- Opt(theta_n, U_n) of step 4 (lib/train/README.md), over the
// flat parameter vector. Which one runs is train.optimizer; the trainer only calls this.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update with learning rate lr on params[P] from the update U_n in grads[P].
  virtual void step(const Tensor& params, const Tensor& grads, float lr) = 0;
  // Buffers of P floats that model averaging may average with the parameters
  // (distributed.average_moments): Adam's m and v; none for a stateless rule.
  virtual std::vector<Tensor> moments() const { return {}; }
  // What an exact resume needs: named arrays, and header fields restore() reads back.
  virtual std::vector<std::pair<std::string, Tensor>> state_arrays() const { return {}; }
  virtual nlohmann::json state_meta() const { return nlohmann::json::object(); }
  virtual void restore_meta(const nlohmann::json& /*meta*/) {}
};

// "adam" (Adam), "sign" (theta <- theta (1 - lr lambda) - lr sign(U), DeMo's) or "sgd"
// (theta <- theta (1 - lr lambda) - lr U), lambda = train.weight_decay.
std::unique_ptr<Optimizer> make_optimizer(const TrainConfig& train, Device& dev, size_t P);

}  // namespace sl
