#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/averager.h"
#include "distributed/combiner.h"
#include "distributed/comm_accounting.h"
#include "distributed/communicator.h"
#include "distributed/distributed_config.h"
#include "distributed/error_feedback.h"
#include "distributed/gradient_exchange.h"
#include "distributed/outer_optimizer.h"
#include "distributed/state_buffer.h"
#include "distributed/step_stats.h"
#include "distributed/tensor_view.h"

namespace sl {

// One node's distributed training strategy, composed of GradientExchange (compressor +
// error feedback + transport), Combiner, Averager and, for diloco, an OuterOptimizer after
// the averaging. The trainer calls, whatever the method:
//   start(theta_0);                                  // once, before step 0
//   per step t (0-based):
//   total = normalize_gradient(grad, local_tokens);  // grad: sum of token-loss gradients
//   exchange(grad, t, stats);                        // grad: g_n in, U_n out
//   ... clip U_n, optimizer step on params ...
//   after_update(params, P, {&m[0], &v[0]}, t, stats);
class DistributedStrategy {
 public:
  // `tensors`: the parameter tensors inside the flat buffer of P floats (tensor_view.h); the
  // methods that compress per tensor (powersgd, demo) need them, the others see one buffer.
  DistributedStrategy(const DistributedConfig& config, Communicator& comm, size_t P,
                      const std::vector<TensorView>& tensors);
  DistributedStrategy(const DistributedConfig& config, Communicator& comm, size_t P)
      : DistributedStrategy(config, comm, P, one_vector(P)) {}

  // theta_0, the same on every node (diloco's first anchor; nothing for the others).
  void start(const float* params);

  // All-reduces the token counts and scales grad by 1/total, giving g_n as PAPER.md
  // defines it (sum_n g_n = the one-node gradient on the union of the batches). Returns the
  // total; throws std::runtime_error when it is 0.
  int64_t normalize_gradient(float* grad, int64_t local_tokens);

  // g_n -> U_n in place. Starts a new `stats` record (including normalize_gradient's bytes).
  void exchange(float* grad, int64_t step, StepStats& stats);

  // Averages every K steps (params, and the moment buffers of P floats each when
  // average_moments), then takes diloco's outer step, and records it in `stats`; a no-op on
  // other steps.
  void after_update(float* params, size_t P, const std::vector<float*>& moments, int64_t step,
                    StepStats& stats);

  // Whether after_update(step) reads and writes the parameters (and moments): an averaging
  // step. A trainer whose parameters live on a device copies them to the host only then.
  bool needs_host_parameters(int64_t step) const { return averager_.due(step); }

  const DistributedConfig& config() const { return config_; }
  size_t parameter_count() const { return P_; }
  Communicator& communicator() { return acct_.comm(); }
  // E_n (sparse methods only, else nullptr): the device strategy mirrors it.
  ErrorFeedback* error_feedback() { return exchange_->error_feedback(); }
  // Every buffer an exact resume needs, by name (checkpoints save and restore them all).
  std::vector<StateBuffer> state();
  // The modeled seconds per step that comm model 1 (comm_accounting.h) left out: a size
  // exchange per variable all-gather of the exchange's step (sparse, demo: one).
  NetworkSeconds comm_model_1_gap_per_step() const;

 private:
  DistributedConfig config_;
  size_t P_;
  CommAccounting acct_;
  std::unique_ptr<GradientExchange> exchange_;
  std::unique_ptr<Combiner> combiner_;
  Averager averager_;
  std::unique_ptr<OuterOptimizer> outer_;  // diloco only
  StepStats pending_;                      // normalize_gradient's share of the next record
};

// The factory the trainer uses; it never branches on the method itself.
std::unique_ptr<DistributedStrategy> make_strategy(const DistributedConfig& config,
                                                   Communicator& comm, size_t P,
                                                   const std::vector<TensorView>& tensors);
std::unique_ptr<DistributedStrategy> make_strategy(const DistributedConfig& config,
                                                   Communicator& comm, size_t P);

}  // namespace sl
