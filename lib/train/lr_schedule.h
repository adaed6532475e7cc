#pragma once
#include <cstdint>
#include <string>

namespace sl {

// Learning rate at a step: linear warm-up to `lr` over `warmup` steps, then
//   "inv_sqrt": inverse-square-root decay (Marian's --lr-decay-inv-sqrt, Vaswani et al.):
//               lr_t = lr * min(t / warmup, sqrt(warmup / t))   for t >= 1
//   "constant": lr
//   "linear":   linear decay to 0 at step `total` (train.max_steps): a run that ends
//               annealed, so every method's curve flattens by its last step
struct LrSchedule {
  double lr = 3e-4;
  int64_t warmup = 1000;
  std::string decay = "inv_sqrt";  // "inv_sqrt" | "constant" | "linear"
  int64_t total = 0;               // "linear" only: the step at which lr reaches 0
  double at(int64_t step) const;   // step counts from 1
};

}  // namespace sl
