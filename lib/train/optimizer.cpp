#include "train/optimizer.h"

#include <stdexcept>

#include "train/adam.h"
#include "train/sign_descent.h"
#include "train/train_config.h"

namespace sl {

std::unique_ptr<Optimizer> make_optimizer(const TrainConfig& train, Device& dev, size_t P) {
  const float wd = static_cast<float>(train.weight_decay);
  if (train.optimizer == "adam") return std::make_unique<Adam>(dev, P, train.adam);
  if (train.optimizer == "sign") return std::make_unique<SignDescent>(true, wd);
  if (train.optimizer == "sgd") return std::make_unique<SignDescent>(false, wd);
  throw std::invalid_argument("unknown optimizer \"" + train.optimizer + "\"");
}

}  // namespace sl
