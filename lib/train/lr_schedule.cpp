#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace sl {

double LrSchedule::at(int64_t step) const {
  const double t = static_cast<double>(std::max<int64_t>(step, 1));
  const double w = static_cast<double>(warmup);
  double f = 1.0;
  if (warmup > 0 && t < w) f = t / w;
  if (decay == "inv_sqrt" && warmup > 0 && t >= w) f = std::sqrt(w / t);
  if (decay == "inv_sqrt" && warmup == 0) f = 1.0 / std::sqrt(t);
  if (decay == "linear" && t >= w && total > warmup)
    f = std::max(0.0, (static_cast<double>(total) - t) / static_cast<double>(total - warmup));
  return lr * f;
}

}  // namespace sl
