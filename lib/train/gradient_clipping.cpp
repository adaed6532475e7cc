#include "train/gradient_clipping.h"

#include <cmath>

namespace sl {

double clip_global_norm(Device& dev, float* g, size_t n, double max_norm) {
  const double norm = std::sqrt(dev.sum_squares(n, g));
  if (max_norm > 0 && std::isfinite(norm) && norm > max_norm)
    dev.axpby(n, 0.0f, g, static_cast<float>(max_norm / norm), g);
  return norm;
}

}  // namespace sl
