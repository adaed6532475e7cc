#pragma once
#include <cstdint>
#include <string>

namespace sl {

// Learning rate at a step: linear warm-up to `lr` over `warmup` steps, then either constant
// or inverse-square-root decay (Marian's --lr-decay-inv-sqrt, Vaswani et al.):
//   lr_t = lr * min(t / warmup, sqrt(warmup / t))   for t >= 1
struct LrSchedule {
  double lr = 3e-4;
  int64_t warmup = 1000;
  std::string decay = "inv_sqrt";  // "inv_sqrt" | "constant"
  double at(int64_t step) const;   // step counts from 1
};

}  // namespace sl
