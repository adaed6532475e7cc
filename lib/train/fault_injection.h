#pragma once
#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace sl {

// Faults for the reliability tests (tests/reliability/), read once per run from the
// environment; unset in normal use, and then every hook is a no-op.
//   SL_FAULT_NONFINITE_STEP=N   node 0's first gradient value becomes NaN at step N (1-based)
//   SL_FAULT_THROW_RANK=R       rank R throws at step SL_FAULT_THROW_STEP (default 1), as a
//                               crashing node would
//   SL_FAULT_HANG_RANK=R        rank R stops answering at step SL_FAULT_HANG_STEP (default 1):
//                               it sleeps for good, as a hung node would
//   SL_FAULT_PAUSE_STEP=N       with SL_FAULT_PAUSE_DIR=D: at the end of step N (after its log
//                               line, validation and checkpoint) every node writes
//                               D/paused-<rank> and waits until D/continue exists (at most
//                               10 minutes), so a test acts at a known step however loaded
//                               the machine is
struct FaultInjection {
  int64_t nonfinite_step = -1, throw_rank = -1, throw_step = 1, hang_rank = -1, hang_step = 1;
  int64_t pause_step = -1;
  std::string pause_dir;

  static FaultInjection from_env();
  // Called by every node after its backward pass of step t (0-based).
  void after_backward(int rank, int64_t t, const Tensor& grads) const;
  // Called by every node when step `step` (1-based) is over.
  void after_step(int rank, int64_t step) const;
};

}  // namespace sl
