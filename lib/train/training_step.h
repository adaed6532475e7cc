#pragma once
#include <cstdint>
#include <functional>

#include "common/timer.h"
#include "data/batch.h"
#include "distributed/communicator.h"
#include "distributed/distributed_strategy.h"
#include "models/seq2seq_model.h"
#include "tensor/parameter_arena.h"
#include "train/fault_injection.h"
#include "train/host_mirror.h"
#include "train/optimizer.h"
#include "train/training_job.h"

namespace sl {

class DeviceDistributedStrategy;  // distributed/device_exchange.h (CUDA builds)

// What this node asks of the others before a step's update: its stop request, and (rank 0
// only, whose clock decides so every node ends at the same step) whether the time budget
// is spent.
struct LocalSignals {
  bool stop = false;
  bool budget_spent = false;
};

// One step as the whole cluster saw it: every field but `stats` is the same on every node.
struct StepReport {
  int64_t t = 0;              // 0-based step index (PAPER.md's t)
  double loss_sum = 0;        // summed token losses over all nodes
  bool nonfinite = false;     // some node's loss or gradient was not finite: no update made
  bool stop = false;          // some node asked to stop
  bool budget_spent = false;  // rank 0's time budget is spent
  double lr = 0, grad_norm = 0;
  double max_compute_s = 0, max_comm_s = 0;   // of the slowest node
  // The least time any node spent in the collectives: the node that arrived last waited for
  // nobody, so this is the communication itself (max_comm_s adds others' compute imbalance).
  double min_comm_s = 0;
  double bytes_sent = 0, bytes_received = 0;  // mean over nodes
  StepStats stats;                            // this node's exchange and averaging
};

// The training step of one node, whatever the distributed method (lib/distributed/README.md):
// g_n by forward + backward, the nodes agree, g_n -> U_n by the strategy, clip, Adam on
// theta_n (train.optimizer), averaging. Every node calls run() for every step; it holds
// collectives.
class TrainingStep {
 public:
  // device_strategy (CUDA backend, else null): the exchange on device pointers -- the gradient
  // stays on the GPU through the exchange -- in place of `strategy`'s host one. Compute time
  // is then a device-synchronised wall clock (common/timer.h ComputeClock); on the CPU it is
  // the thread's CPU time, as always.
  TrainingStep(const TrainingJob& job, Communicator& comm, Seq2SeqModel& model,
               ParameterArena& arena, Optimizer& optimizer, DistributedStrategy& strategy,
               DeviceDistributedStrategy* device_strategy = nullptr);

  // `signals` is read once the node's gradient is ready, just before the nodes agree.
  StepReport run(const Batch& b, int64_t t, const std::function<LocalSignals()>& signals);

 private:
  double forward_backward(const Batch& b, int64_t t);  // sum of token losses; grads filled
  bool gradient_finite(double loss_sum) const;
  void agree(StepReport& r, double loss_sum, bool finite_here, LocalSignals here);
  void report_nonfinite(int64_t t, double loss_sum) const;
  void exchange(const Batch& b, int64_t t, StepStats& stats);
  void update(StepReport& r);
  void average(int64_t t, StepStats& stats);
  void gather_measurements(StepReport& r, double compute_s);

  const TrainingJob& job_;
  Communicator& comm_;
  Seq2SeqModel& model_;
  ParameterArena& arena_;
  Optimizer& optimizer_;
  DistributedStrategy& strategy_;
  DeviceDistributedStrategy* device_strategy_;
  ComputeClock clock_;
  const FaultInjection faults_ = FaultInjection::from_env();
  HostMirror grad_h_, param_h_;
  std::vector<HostMirror> moments_h_;  // the optimizer's moments (averaging steps)
};

}  // namespace sl
