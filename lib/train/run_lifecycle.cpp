#include "train/run_lifecycle.h"

#include "common/timer.h"

namespace sl {

RunLifecycle::RunLifecycle(const TrainConfig& train, const ValidConfig& valid,
                           const std::atomic<bool>* stop_requested, int rank, double wall_start)
    : train_(train),
      valid_every_(valid.every),
      checkpoint_every_(train.checkpoint_every),
      stop_requested_(stop_requested),
      rank_(rank),
      wall_start_(wall_start) {
  if (valid.final_every > 0 && valid.final_fraction > 0) {
    final_every_ = valid.final_every;
    final_from_ = train.max_steps - static_cast<int64_t>(valid.final_fraction * train.max_steps);
  }
}

bool RunLifecycle::more_steps(int64_t steps_done, uint64_t epochs_done) {
  if (steps_done >= train_.max_steps) return false;
  if (train_.max_epochs > 0 && static_cast<int64_t>(epochs_done) >= train_.max_epochs) {
    ended_by_ = "max_epochs";
    return false;
  }
  return true;
}

LocalSignals RunLifecycle::signals() const {
  LocalSignals s;
  s.stop = stop_requested_ && stop_requested_->load();
  // Rank 0's clock decides the time budget, so every node ends at the same step.
  s.budget_spent =
      rank_ == 0 && train_.time_limit_s > 0 && wall_seconds() - wall_start_ > train_.time_limit_s;
  return s;
}

bool RunLifecycle::continue_after_nonfinite(int64_t t) {
  if (train_.on_nonfinite != "stop") return true;
  stop_reason_ = "non-finite loss or gradient at step " + std::to_string(t + 1);
  nonfinite_stop_ = true;
  return false;
}

bool RunLifecycle::ends_after(const StepReport& r, int64_t steps_done) {
  if (r.stop) {
    stop_reason_ = "stop signal at step " + std::to_string(steps_done);
    return true;
  }
  if (r.budget_spent) {
    ended_by_ = "time_limit_s";
    return true;
  }
  return false;
}

}  // namespace sl
