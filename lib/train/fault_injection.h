#pragma once
#include <cstdint>

#include "tensor/tensor.h"

namespace sl {

// Faults for the reliability tests (tests/reliability/), read once per run from the
// environment; unset in normal use, and then every hook is a no-op.
//   SL_FAULT_NONFINITE_STEP=N   node 0's first gradient value becomes NaN at step N (1-based)
//   SL_FAULT_THROW_RANK=R       rank R throws at step SL_FAULT_THROW_STEP (default 1), as a
//                               crashing node would
struct FaultInjection {
  int64_t nonfinite_step = -1, throw_rank = -1, throw_step = 1;

  static FaultInjection from_env();
  // Called by every node after its backward pass of step t (0-based).
  void after_backward(int rank, int64_t t, const Tensor& grads) const;
};

}  // namespace sl
