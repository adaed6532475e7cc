#include "distributed/drop_ratio_schedule.h"

#include <cmath>

namespace sl {

double drop_ratio_at(double rho, int64_t W, int64_t t) {
  if (W <= 0 || t >= W) return rho;
  return std::pow(rho, static_cast<double>(W) / (1.0 + static_cast<double>(t)));
}

size_t keep_count(size_t P, double rho_t) {
  if (P == 0) return 0;
  const double k = std::llround((1.0 - rho_t) * static_cast<double>(P));
  if (k < 1) return 1;
  if (k > static_cast<double>(P)) return P;
  return static_cast<size_t>(k);
}

}  // namespace sl
