#include "train/node_trainer.h"

#include <cstdio>
#include <memory>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/timer.h"
#include "data/batch_generator.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "tensor/profile_table.h"
#include "train/best_model.h"
#include "train/fault_injection.h"
#include "train/kernel_record.h"
#include "train/node_checkpoint.h"
#include "train/optimizer.h"
#include "train/parameter_views.h"
#include "train/run_lifecycle.h"
#include "train/run_logger.h"
#include "train/run_totals.h"
#include "train/training_step.h"
#include "train/validator.h"
#ifdef SL_HAVE_CUDA
#include "distributed/device_exchange.h"
#include "tensor/cuda/cuda_device.h"
#endif

namespace sl {

namespace {

// One node's run: the objects its steps use, and what happens between the steps (resume,
// validation, checkpoints, the end). A step itself is TrainingStep's; when to validate,
// checkpoint and stop is RunLifecycle's; every file and progress line is RunLogger's.
class NodeRun {
 public:
  NodeRun(const TrainingJob& job, Communicator& comm);
  NodeOutcome run();

 private:
  void resume();
  void note_kernels();
  void validate();
  void checkpoint();
  NodeOutcome interrupted(const RunLifecycle& lifecycle);
  NodeOutcome finish(const RunLifecycle& lifecycle);
  nlohmann::json test();
  double wall() const { return wall_seconds() - wall_start_; }
  void summary(const std::string& status, const std::string& reason,
               const nlohmann::json& extra) const {
    logger_->summary(status, reason, totals_, batches_->state(), wall(), outcome_.last_checkpoint,
                     extra);
  }

  void print_profile() const;

  const TrainingJob& job_;
  Communicator& comm_;
  const int N_, rank_;
  Device& base_dev_;                           // validation and test run here, unprofiled
  std::unique_ptr<ProfilingDevice> profiler_;  // --profile, node 0: wraps base_dev_
  Device& dev_;
  double profiled_cpu_s_ = 0;  // node 0's thread CPU time inside its training steps
  int64_t profiled_steps_ = 0;
  std::unique_ptr<Seq2SeqModel> model_;
  ParameterArena arena_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<DistributedStrategy> strategy_;
#ifdef SL_HAVE_CUDA
  // CUDA backend: the exchange on the device (E_n mirrored into strategy_'s for checkpoints).
  std::unique_ptr<DeviceDistributedStrategy> device_strategy_;
#endif
  std::unique_ptr<BatchGenerator> batches_;
  std::unique_ptr<Validator> validator_;
  std::unique_ptr<RunLogger> logger_;
  std::unique_ptr<CheckpointStore> store_;
  BestModel best_;
  const FaultInjection faults_ = FaultInjection::from_env();
  RunTotals totals_;
  NodeOutcome outcome_;
  double wall_start_ = 0;
};

NodeRun::NodeRun(const TrainingJob& job, Communicator& comm)
    : job_(job),
      comm_(comm),
      N_(comm.size()),
      rank_(comm.rank()),
      base_dev_(device_by_name(job.device, job.name + ":/device")),
      profiler_(job.profile && comm.rank() == 0
                    ? std::make_unique<ProfilingDevice>(base_dev_,
                                                        /*thread_cpu_time=*/!base_dev_.is_cuda())
                    : nullptr),
      dev_(profiler_ ? static_cast<Device&>(*profiler_) : base_dev_),
      model_(make_model(job.model)),
      arena_(dev_),
      best_(job) {
  model_->declare(arena_);
  arena_.allocate();
  model_->initialize(arena_, job.seed);  // the same theta_0 on every node
  const size_t P = arena_.size();
  optimizer_ = make_optimizer(job.train, dev_, P);
  strategy_ = make_strategy(job.distributed, comm, P, parameter_views(arena_));
  strategy_->start(arena_.values().to_host().data());  // a resume then loads its own state
#ifdef SL_HAVE_CUDA
  if (dev_.is_cuda() && job.distributed.has_device_exchange())
    device_strategy_ = std::make_unique<DeviceDistributedStrategy>(
        job.distributed, comm, P, dev_, strategy_->error_feedback());
#endif
  BatchOptions bo = job.batching;
  bo.num_shards = N_;
  bo.shard = rank_;
  batches_ = std::make_unique<BatchGenerator>(job.data->train, bo);
  validator_ = std::make_unique<Validator>(job, base_dev_);
  logger_ = std::make_unique<RunLogger>(job, rank_, N_, P);
  store_ = std::make_unique<CheckpointStore>(job.results_dir + "/checkpoints",
                                             model_fingerprint(arena_));
}

NodeOutcome NodeRun::run() {
  if (job_.resume) resume();
  note_kernels();
  wall_start_ = wall_seconds() - totals_.wall_s;
  logger_->start(outcome_.last_checkpoint.empty() ? -1 : totals_.step);
  RunLifecycle lifecycle(job_.train, job_.valid, job_.stop_requested, rank_, wall_start_);
#ifdef SL_HAVE_CUDA
  TrainingStep step(job_, comm_, *model_, arena_, *optimizer_, *strategy_, device_strategy_.get());
#else
  TrainingStep step(job_, comm_, *model_, arena_, *optimizer_, *strategy_);
#endif
  while (lifecycle.more_steps(totals_.step, batches_->epochs_done())) {
    const Batch b = batches_->next();
    const uint64_t epoch = batches_->state().epoch;  // b's: next() moved into its epoch
    const double cpu0 = profiler_ ? thread_cpu_seconds() : 0;
    const StepReport r = step.run(b, totals_.step, [&] { return lifecycle.signals(); });
    if (profiler_) {
      profiled_cpu_s_ += thread_cpu_seconds() - cpu0;
      ++profiled_steps_;
    }
    if (r.nonfinite) {
      if (!lifecycle.continue_after_nonfinite(r.t)) break;
      ++totals_.skipped_steps;
      ++totals_.step;
      continue;
    }
    totals_.add_step(r.stats.total_tokens, r.bytes_sent,
                     r.stats.modeled_comm.plus(r.max_compute_s));
    logger_->step(r, totals_, epoch, wall());
    if (lifecycle.validation_due(totals_.step)) validate();
    if (lifecycle.checkpoint_due(totals_.step)) checkpoint();
    faults_.after_step(rank_, totals_.step);
    if (lifecycle.ends_after(r, totals_.step)) break;
  }
  outcome_.steps = totals_.step;
  if (profiler_) print_profile();
  return lifecycle.interrupted() ? interrupted(lifecycle) : finish(lifecycle);
}

void NodeRun::print_profile() const {
  if (profiled_steps_ == 0) return;
  const double per_step = profiled_cpu_s_ / static_cast<double>(profiled_steps_);
  std::fprintf(stderr,
               "[%s] profile of node 0: %lld updates, %.2f ms of its CPU per update (forward, "
               "backward, exchange, optimizer; validation excluded)\n%s",
               job_.name.c_str(), static_cast<long long>(profiled_steps_), 1e3 * per_step,
               profile_table(*profiler_, static_cast<int>(profiled_steps_), per_step, 0).c_str());
}

void NodeRun::resume() {
  const std::string latest = store_->latest();
  if (latest.empty()) return;
  const NodeState state{&arena_, optimizer_.get(), strategy_.get(), batches_.get()};
  const nlohmann::json run = store_->load_node(latest, rank_, N_, state);
  try {
    totals_ = RunTotals::from_json(run);
  } catch (const nlohmann::json::exception& x) {
    throw InputError(latest + "/run.json", std::string("lacks the run's totals (a damaged checkpoint): ") + x.what());
  }
  const bool upgraded = totals_.comm_model < kCommModelVersion;
  if (upgraded) {
    // Skipped steps (a non-finite loss) never reached the exchange: no time was booked.
    const int64_t exchanged = totals_.step - totals_.skipped_steps;
    totals_.modeled += strategy_->comm_model_1_gap_per_step().times(static_cast<double>(exchanged));
    totals_.comm_model = kCommModelVersion;
  }
#ifdef SL_HAVE_CUDA
  if (device_strategy_) device_strategy_->error_feedback_to_device();  // the loaded E_n
#endif
  outcome_.last_checkpoint = latest;
  if (rank_ != 0) return;
  best_.restore_from(latest, totals_.best_step);
  logger_->message("[" + job_.name + "] resumed from " + latest + " (step " +
                   std::to_string(totals_.step) + ")");
  if (upgraded)
    logger_->message("[" + job_.name + "] the checkpoint's modeled times are of comm model 1 "
                     "(without the size exchange of the sparse all-gathers): upgraded to " +
                     std::to_string(kCommModelVersion) + " for steps 1.." +
                     std::to_string(totals_.step));
}

// A fresh run opens the first kernel segment; a resume onto other kernels (CPU BLAS, or the GPU
// and cuBLAS of a CUDA run) opens another and says so (rank 0 keeps the totals, so it alone
// decides).
void NodeRun::note_kernels() {
#ifdef SL_HAVE_CUDA
  // Every rank takes part: rank 0 learns the others' GPUs (the CPU BLAS was compared at start-up).
  const std::string gpu = base_dev_.is_cuda() ? static_cast<const CudaDevice&>(base_dev_).kernels() : "";
  if (base_dev_.is_cuda() && N_ > 1) {
    std::vector<std::vector<uint8_t>> all;
    comm_.allgather_bytes(std::vector<uint8_t>(gpu.begin(), gpu.end()), all);
    std::vector<std::string> gpus;
    for (const std::vector<uint8_t>& g : all) gpus.emplace_back(g.begin(), g.end());
    if (const std::string m = rank_gpu_mismatch(gpus); rank_ == 0 && !m.empty())
      logger_->message("[" + job_.name + "] warning: " + m);
  }
#endif
  if (rank_ != 0) return;
  nlohmann::json now = kernel_segment(totals_.step);
#ifdef SL_HAVE_CUDA
  if (base_dev_.is_cuda()) now["gpu"] = gpu;
#endif
  if (!totals_.kernels.empty()) {
    const std::string change = kernel_change(totals_.kernels, now);
    if (change.empty()) return;
    logger_->message("[" + job_.name + "] warning: " + change);
  }
  totals_.kernels.push_back(std::move(now));
}

void NodeRun::validate() {
  std::vector<float> mine = arena_.values().to_host();
  ValidationResult v = validator_->evaluate(comm_, mine, 0, job_.data->dev, job_.data->dev_refs,
                                            true, job_.valid.max_sentences);
  if (rank_ != 0) return;
  logger_->validation(v, totals_, batches_->state().epoch, wall());
  best_.offer(totals_.step, v.bleu.score, std::move(mine), totals_.best_bleu, totals_.best_step);
}

void NodeRun::checkpoint() {
#ifdef SL_HAVE_CUDA
  if (device_strategy_) device_strategy_->error_feedback();  // E_n: device -> strategy_'s copy
#endif
  const NodeState state{&arena_, optimizer_.get(), strategy_.get(), batches_.get()};
  store_->save_node(totals_.step, rank_, N_, state);
  const std::string step_dir =
      job_.results_dir + "/checkpoints/" + CheckpointStore::step_dir_name(totals_.step);
  comm_.barrier();  // every node's file is complete before the commit names the step
  if (rank_ == 0) {
    nlohmann::json meta = totals_.to_json();
    meta["wall_s"] = wall();
    best_.save_into(step_dir);
    store_->commit(totals_.step, meta, job_.train.keep_checkpoints);
  }
  comm_.barrier();
  outcome_.last_checkpoint = step_dir;
  // Replaced at the end; if the job dies (a failing rank aborts it), this is what remains.
  summary("incomplete",
          "running (no clean end yet); continue from the last checkpoint with --resume",
          nlohmann::json::object());
}

NodeOutcome NodeRun::interrupted(const RunLifecycle& lifecycle) {
  if (lifecycle.checkpoint_on_interrupt(totals_.step)) checkpoint();
  outcome_.reason = lifecycle.stop_reason();
  summary("incomplete", outcome_.reason, nlohmann::json::object());
  logger_->message("\n[" + job_.name + "] stopped at step " + std::to_string(totals_.step) + " (" +
                   outcome_.reason + "); last checkpoint " +
                   (outcome_.last_checkpoint.empty() ? "(none)" : outcome_.last_checkpoint) +
                   "; continue with --resume");
  return outcome_;
}

// The end: a final validation unless the last step had one, the test set with the best
// parameters, and a final checkpoint unless the last step had one.
NodeOutcome NodeRun::finish(const RunLifecycle& lifecycle) {
  if (!lifecycle.validation_due(totals_.step)) validate();
  nlohmann::json extra = test();
  if (!lifecycle.checkpoint_due(totals_.step)) checkpoint();
  outcome_.complete = true;
  extra["ended_by"] = lifecycle.ended_by();
  summary("complete", "", extra);
  return outcome_;
}

nlohmann::json NodeRun::test() {
  if (!job_.valid.test_at_end || job_.data->test.empty()) return nlohmann::json::object();
  std::vector<float> params = rank_ == 0 ? best_.params() : std::vector<float>();
  ValidationResult r = validator_->evaluate(comm_, params, 0, job_.data->test, job_.data->test_refs,
                                            false, static_cast<int64_t>(job_.data->test.size()));
  if (rank_ != 0) return nlohmann::json::object();
  logger_->test_hypotheses(r);
  return {{"test_bleu", r.bleu.score},
          {"test_chrf", r.chrf.score},
          {"test_bleu_detail", format_bleu(r.bleu)},
          {"test_sentences", r.sentences},
          {"bleu_signature", bleu_signature()}};
}

}  // namespace

NodeOutcome run_training_node(const TrainingJob& job, Communicator& comm) {
  return NodeRun(job, comm).run();
}

}  // namespace sl
