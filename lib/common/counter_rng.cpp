#include "common/counter_rng.h"

#include <cmath>

namespace sl {

float CounterRng::normal() {
  float u1 = uniform();
  float u2 = uniform();
  if (u1 < 1e-7f) u1 = 1e-7f;
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.283185307179586f * u2);
}

}  // namespace sl
