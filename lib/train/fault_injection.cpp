#include "train/fault_injection.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/atomic_file.h"

namespace sl {

FaultInjection FaultInjection::from_env() {
  FaultInjection f;
  auto num = [](const char* name, int64_t& out) {
    if (const char* v = std::getenv(name)) out = std::atoll(v);
  };
  num("SL_FAULT_NONFINITE_STEP", f.nonfinite_step);
  num("SL_FAULT_THROW_RANK", f.throw_rank);
  num("SL_FAULT_THROW_STEP", f.throw_step);
  num("SL_FAULT_HANG_RANK", f.hang_rank);
  num("SL_FAULT_HANG_STEP", f.hang_step);
  num("SL_FAULT_PAUSE_STEP", f.pause_step);
  if (const char* d = std::getenv("SL_FAULT_PAUSE_DIR")) f.pause_dir = d;
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
  if (rank == hang_rank && t + 1 == hang_step) {
    std::fprintf(stderr, "node %d: injected hang (SL_FAULT_HANG_RANK=%d) at step %lld\n", rank,
                 rank, static_cast<long long>(t + 1));
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

void FaultInjection::after_step(int rank, int64_t step) const {
  if (step != pause_step || pause_dir.empty()) return;
  make_dirs(pause_dir);
  write_file_atomic(pause_dir + "/paused-" + std::to_string(rank), std::to_string(step) + "\n");
  const std::string go = pause_dir + "/continue";
  for (int i = 0; i < 60000 && ::access(go.c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace sl
