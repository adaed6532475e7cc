#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "train/train_config.h"
#include "train/training_step.h"

namespace sl {

// Decides when a run validates, checkpoints and ends, from the config and what the nodes
// agreed on (so every node decides the same): max_steps, max_epochs, the time budget
// (ends the run normally, like fairseq's --stop-time-hours), SIGTERM/SIGUSR1 and
// on_nonfinite (both end it incomplete, to be continued with --resume).
class RunLifecycle {
 public:
  RunLifecycle(const TrainConfig& train, const ValidConfig& valid,
               const std::atomic<bool>* stop_requested, int rank, double wall_start);

  // Before a step: false when max_steps or max_epochs is reached.
  // epochs_done: epochs whose every batch has been used (BatchGenerator::epochs_done).
  bool more_steps(int64_t steps_done, uint64_t epochs_done);
  LocalSignals signals() const;
  // After a step whose update was skipped (non-finite): true to go on, false to stop.
  bool continue_after_nonfinite(int64_t t);
  bool validation_due(int64_t steps_done) const {
    return every(valid_every_, steps_done) ||
           (steps_done > final_from_ && every(final_every_, steps_done));
  }
  bool checkpoint_due(int64_t steps_done) const { return every(checkpoint_every_, steps_done); }
  // After a completed step (and its validation and checkpoint): true when the run ends here.
  bool ends_after(const StepReport& r, int64_t steps_done);

  bool interrupted() const { return !stop_reason_.empty(); }
  // Why the run ends incomplete (a signal, a non-finite step); "" otherwise.
  const std::string& stop_reason() const { return stop_reason_; }
  // How a complete run ended: "max_steps", "max_epochs" or "time_limit_s".
  const std::string& ended_by() const { return ended_by_; }
  // An interrupted run checkpoints what it has, unless the step had just been checkpointed
  // or its state is suspect (a non-finite step).
  bool checkpoint_on_interrupt(int64_t steps_done) const {
    return !nonfinite_stop_ && !checkpoint_due(steps_done);
  }

 private:
  static bool every(int64_t n, int64_t steps_done) { return n > 0 && steps_done % n == 0; }
  int64_t final_every_ = 0, final_from_ = 0;  // valid.final_every after step final_from_

  const TrainConfig& train_;
  int64_t valid_every_, checkpoint_every_;
  const std::atomic<bool>* stop_requested_;
  int rank_;
  double wall_start_;
  std::string stop_reason_, ended_by_ = "max_steps";
  bool nonfinite_stop_ = false;
};

}  // namespace sl
