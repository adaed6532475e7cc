#pragma once
// The distributed step with the gradient on the GPU (CUDA backend). Same interface and
// results as DistributedStrategy, but grad, params and moments are device pointers of
// `dev`, and the gradient, the residual E_n, the selection and G stay on the device:
//   sparse: A_n = g_n + E_n, tau_n (exact or sampled), S_n compaction, E_n update and the
//           rank-order scatter-add of G are kernels (lib/tensor/cuda/sparsify.*); only S_n's
//           pairs go to the host (to be encoded and all-gathered) and the N received blocks
//           come back as pairs.
//   dense:  with N > 1 the buffer goes through pinned host memory for the MPI all-reduce and
//           back (MPI here is not CUDA-aware; the buffer is what crosses, as PAPER.md's dense
//           method sends it), the two copies booked as communication; with N = 1 nothing
//           moves (host_staged_allreduce, dense_exchange.h).
//   fedavg: nothing crosses.
//   combiners (sum, partial, error) run on the device in the CPU's element order.
//   averaging (every K steps): params (and moments) go to the host for the all-reduce.
// Bit-identical to the CPU path for the same g_n: every step is an exact selection on integer
// keys, a copy, or one float add / multiply per element in the CPU's order (see
// lib/tensor/cuda/README.md). What differs between a GPU and a CPU run is g_n itself (the
// model's kernels), not this layer.
//
// Built only with the CUDA backend (library sl_distributed_device; it links lib/tensor, which
// lib/distributed itself does not). The trainer picks it when the model's device is CUDA.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/distributed_strategy.h"
#include "tensor/device.h"

namespace sl {

class DeviceDistributedStrategy {
 public:
  // host_E: where error_feedback() copies E_n to (and error_feedback_to_device() reads it
  // from), e.g. the CPU strategy's, so checkpoints keep one E_n object; null: an own one.
  DeviceDistributedStrategy(const DistributedConfig& config, Communicator& comm, size_t P,
                            Device& dev, ErrorFeedback* host_E = nullptr);
  ~DeviceDistributedStrategy();

  // As DistributedStrategy, on device pointers.
  int64_t normalize_gradient(float* grad, int64_t local_tokens);
  void exchange(float* grad, int64_t step, StepStats& stats);
  void after_update(float* params, size_t P, const std::vector<float*>& moments, int64_t step,
                    StepStats& stats);

  const DistributedConfig& config() const { return config_; }
  size_t parameter_count() const { return P_; }
  Communicator& communicator() { return acct_.comm(); }
  // E_n for checkpoints, copied from the device (nullptr unless method is sparse). After
  // changing it (resume), call error_feedback_to_device().
  ErrorFeedback* error_feedback();
  void error_feedback_to_device();

 private:
  void combine(float* grad, float* G);
  void to_host(std::vector<float>& h, const float* d);
  void from_host(float* d, const std::vector<float>& h);

  DistributedConfig config_;
  size_t P_;
  Device& dev_;
  CommAccounting acct_;
  Averager averager_;
  StepStats pending_;
  ErrorFeedback* host_E_ = nullptr;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sl
