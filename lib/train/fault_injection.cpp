#include "train/fault_injection.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sl {

FaultInjection FaultInjection::from_env() {
  FaultInjection f;
  auto num = [](const char* name, int64_t& out) {
    if (const char* v = std::getenv(name)) out = std::atoll(v);
  };
  num("SL_FAULT_NONFINITE_STEP", f.nonfinite_step);
  num("SL_FAULT_THROW_RANK", f.throw_rank);
  num("SL_FAULT_THROW_STEP", f.throw_step);
  return f;
}

void FaultInjection::after_backward(int rank, int64_t t, const Tensor& grads) const {
  if (rank == 0 && t + 1 == nonfinite_step) {
    const float nan = std::nanf("");
    grads.device().from_host(grads.f32(), &nan, sizeof(float));
  }
  if (rank == throw_rank && t + 1 == throw_step)
    throw std::runtime_error("injected fault (SL_FAULT_THROW_RANK=" + std::to_string(rank) +
                             ") at step " + std::to_string(t + 1));
}

}  // namespace sl
