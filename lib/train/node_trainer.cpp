#include "train/node_trainer.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/counter_rng.h"
#include "common/input_error.h"
#include "common/timer.h"
#include "data/batch_generator.h"
#include "train/results_dir.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "train/checkpoint_file.h"
#include "train/cluster_gather.h"
#include "train/gradient_clipping.h"
#include "train/node_checkpoint.h"
#include "train/run_totals.h"
#include "train/validator.h"

namespace sl {

namespace {

// Host view of a device buffer for the distributed layer, which works on host memory.
// On the CPU backend it is the buffer itself (no copy).
class HostMirror {
 public:
  HostMirror(const Tensor& t) : t_(t), cpu_(!t.device().is_cuda()) {
    if (!cpu_) host_.resize(static_cast<size_t>(t.numel()));
  }
  float* pull() {
    if (cpu_) return t_.f32();
    t_.device().to_host(host_.data(), t_.f32(), host_.size() * sizeof(float));
    return host_.data();
  }
  void push() {
    if (!cpu_) t_.device().from_host(t_.f32(), host_.data(), host_.size() * sizeof(float));
  }

 private:
  Tensor t_;
  bool cpu_;
  std::vector<float> host_;
};

// Index of the first non-finite value of a host or device buffer, or -1.
int64_t first_nonfinite(const Tensor& t) {
  std::vector<float> v = t.to_host();
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return static_cast<int64_t>(i);
  return -1;
}

// Fault injection for the reliability tests (tests/reliability/), read once per run from the
// environment; unset in normal use. SL_FAULT_NONFINITE_STEP=N writes a NaN into node 0's first
// gradient value at step N; SL_FAULT_THROW_RANK=R (with SL_FAULT_THROW_STEP=N, default 1) makes
// rank R throw at step N, as a crashing node would.
struct FaultInjection {
  int64_t nonfinite_step = -1, throw_rank = -1, throw_step = 1;
  static FaultInjection from_env() {
    FaultInjection f;
    auto num = [](const char* name, int64_t& out) {
      if (const char* v = std::getenv(name)) out = std::atoll(v);
    };
    num("SL_FAULT_NONFINITE_STEP", f.nonfinite_step);
    num("SL_FAULT_THROW_RANK", f.throw_rank);
    num("SL_FAULT_THROW_STEP", f.throw_step);
    return f;
  }
};

struct Progress {
  bool tty;
  void line(const std::string& s, bool final_line) const {
    if (tty) {
      std::fprintf(stderr, "\r%-100s%s", s.c_str(), final_line ? "\n" : "");
    } else if (final_line) {
      std::fprintf(stderr, "%s\n", s.c_str());
    }
    std::fflush(stderr);
  }
};

}  // namespace

NodeOutcome run_training_node(const TrainingJob& job, Communicator& comm) {
  const int N = comm.size(), rank = comm.rank();
  Device& dev = device_by_name(job.device, job.name + ":/device");
  std::unique_ptr<Seq2SeqModel> model = make_model(job.model);
  ParameterArena arena(dev);
  model->declare(arena);
  arena.allocate();
  model->initialize(arena, job.seed);  // the same theta_0 on every node
  const size_t P = arena.size();
  Adam adam(dev, P, job.train.adam);
  std::unique_ptr<DistributedStrategy> strategy = make_strategy(job.distributed, comm, P);
  BatchOptions bo = job.batching;
  bo.num_shards = N;
  bo.shard = rank;
  BatchGenerator batches(job.data->train, bo);
  Validator validator(job, dev);
  std::unique_ptr<ResultsDir> results;
  if (rank == 0) results = std::make_unique<ResultsDir>(job.results_dir);
  CheckpointStore store(job.results_dir + "/checkpoints", model_fingerprint(arena));
  const NodeState state{&arena, &adam, strategy.get(), &batches};
  const std::string method = job.distributed.method_name();
  const Progress progress{job.progress_on_tty && rank == 0 && ::isatty(2)};
  const FaultInjection fault = FaultInjection::from_env();

  RunTotals totals;
  std::vector<float> best_params;  // rank 0: parameters of the best dev BLEU so far
  const std::string best_path = job.results_dir + "/best-model.ckpt";
  NodeOutcome outcome;

  if (job.resume) {
    const std::string latest = store.latest();
    if (!latest.empty()) {
      totals = RunTotals::from_json(store.load_node(latest, rank, N, state));
      outcome.last_checkpoint = latest;
      if (rank == 0) {
        results->truncate_jsonl("log.jsonl", totals.step);
        results->truncate_jsonl("valid.jsonl", totals.step);
        if (access(best_path.c_str(), R_OK) == 0)
          best_params = read_checkpoint_file(best_path).array("params", best_path);
        std::fprintf(stderr, "[%s] resumed from %s (step %lld)\n", job.name.c_str(),
                     latest.c_str(), static_cast<long long>(totals.step));
      }
    }
  }

  HostMirror grad_h(arena.grads()), param_h(arena.values()), m_h(adam.m()), v_h(adam.v());
  const double wall_start = wall_seconds() - totals.wall_s;

  auto write_summary = [&](const std::string& status, const std::string& reason,
                           const nlohmann::json& test) {
    if (rank != 0) return;
    nlohmann::json s = {{"experiment", job.name},
                        {"status", status},
                        {"steps", totals.step},
                        {"epochs", batches.state().epoch + (batches.state().batch > 0 ? 1 : 0)},
                        {"tokens", totals.tokens},
                        {"skipped_steps", totals.skipped_steps},
                        {"wall_s", wall_seconds() - wall_start},
                        {"modeled_time_s", totals.modeled_json()},
                        {"best_dev_bleu", totals.best_bleu < 0 ? nlohmann::json() : nlohmann::json(totals.best_bleu)},
                        {"best_step", totals.best_step},
                        {"last_checkpoint", outcome.last_checkpoint},
                        {"nodes", N},
                        {"method", method},
                        {"model", to_string(job.model.type)},
                        {"parameters", P},
                        {"bytes_per_step", totals.step ? totals.bytes_sent / totals.step : 0.0}};
    if (!reason.empty()) s["reason"] = reason;
    for (auto it = test.begin(); it != test.end(); ++it) s[it.key()] = it.value();
    results->write_json("summary.json", s);
  };

  auto save_checkpoint = [&]() {
    store.save_node(totals.step, rank, N, state);
    comm.barrier();  // every node's file is complete before the commit names the step
    std::string committed;
    if (rank == 0) {
      nlohmann::json meta = totals.to_json();
      meta["wall_s"] = wall_seconds() - wall_start;
      committed = store.commit(totals.step, meta, job.train.keep_checkpoints);
    }
    comm.barrier();
    outcome.last_checkpoint = job.results_dir + "/checkpoints/" + CheckpointStore::step_dir_name(totals.step);
    // Replaced at the end; if the job dies (a failing rank aborts it), this is what remains.
    write_summary("incomplete", "running (no clean end yet); continue from the last checkpoint with --resume",
                  nlohmann::json::object());
  };

  auto validate = [&]() {
    std::vector<float> mine = arena.values().to_host();
    ValidationResult v = validator.evaluate(comm, mine, 0, job.data->dev, job.data->dev_refs,
                                            true, job.valid.max_sentences);
    if (rank != 0) return;
    nlohmann::json j = {{"step", totals.step},
                        {"epoch", batches.state().epoch + 1},
                        {"tokens", totals.tokens},
                        {"wall_s", wall_seconds() - wall_start},
                        {"modeled_time_s", totals.modeled_json()},
                        {"dev_ce", v.ce},
                        {"dev_ppl", std::exp(v.ce)},
                        {"bleu", v.bleu.score},
                        {"chrf", v.chrf.score},
                        {"bleu_signature", bleu_signature()},
                        {"chrf_signature", chrf_signature()},
                        {"decode", job.valid.decode.beam_size == 1 ? "greedy" : "beam" + std::to_string(job.valid.decode.beam_size)},
                        {"sentences", v.sentences}};
    results->append_jsonl("valid.jsonl", j);
    if (v.bleu.score > totals.best_bleu) {
      totals.best_bleu = v.bleu.score;
      totals.best_step = totals.step;
      best_params = std::move(mine);
      CheckpointFile f;
      f.meta = {{"step", totals.step}, {"bleu", v.bleu.score}, {"model", to_json(job.model)},
                {"vocab", job.data->vocab->path()}};
      f.arrays.emplace_back("params", best_params);
      write_checkpoint_file(best_path, f);
    }
    progress.line("[" + job.name + "] step " + std::to_string(totals.step) + " dev ce " +
                      std::to_string(v.ce) + " BLEU " + std::to_string(v.bleu.score),
                  true);
  };

  if (rank == 0 && !job.resume) results->write_json("config.json", job.resolved_config);
  if (rank == 0 && job.resume) results->write_json("config.json", job.resolved_config);

  std::string stop_reason;
  std::string ended_by = "max_steps";
  double log_loss = 0, log_tokens = 0;
  while (totals.step < job.train.max_steps) {
    if (job.train.max_epochs > 0 && static_cast<int64_t>(batches.state().epoch) >= job.train.max_epochs) {
      ended_by = "max_epochs";
      break;
    }
    const int64_t t = totals.step;  // 0-based index of this step (PAPER.md's t)
    const uint64_t epoch = batches.state().epoch;
    Batch b = batches.next();

    // 1. g_n
    const double c0 = thread_cpu_seconds();
    ModelBatch mb = make_model_batch(dev, b.B, b.S, b.T, b.src, b.src_lengths, b.tgt_in, b.tgt_out);
    arena.zero_grads();
    double loss_sum;
    {
      Graph g(dev, /*dropout_enabled=*/true,
              counter_hash(job.seed, static_cast<uint64_t>(rank), static_cast<uint64_t>(t)));
      Var loss = model->loss(g, arena, mb);
      g.backward(loss);
      loss_sum = loss.value().to_host()[0];
    }
    if (rank == 0 && t + 1 == fault.nonfinite_step) {
      const float nan = std::nanf("");
      dev.from_host(arena.grads().f32(), &nan, sizeof(float));
    }
    if (rank == fault.throw_rank && t + 1 == fault.throw_step)
      throw std::runtime_error("injected fault (SL_FAULT_THROW_RANK=" + std::to_string(rank) +
                               ") at step " + std::to_string(t + 1));
    const bool nonfinite = !std::isfinite(loss_sum) || !std::isfinite(dev.sum_squares(P, arena.grads().f32()));
    double compute_s = thread_cpu_seconds() - c0;

    // 2. agree on loss, non-finite values and stop requests
    const bool stop_local = job.stop_requested && job.stop_requested->load();
    // Rank 0's clock decides the time budget, so every node ends at the same step.
    const bool budget_local = rank == 0 && job.train.time_limit_s > 0 &&
                              wall_seconds() - wall_start > job.train.time_limit_s;
    auto flags = allgather_doubles(comm, {loss_sum, nonfinite ? 1.0 : 0.0, stop_local ? 1.0 : 0.0,
                                          budget_local ? 1.0 : 0.0});
    double step_loss = 0, any_nonfinite = 0, any_stop = 0, budget_spent = 0;
    for (auto& f : flags) {
      step_loss += f[0];
      any_nonfinite += f[1];
      any_stop += f[2];
      budget_spent += f[3];
    }
    if (any_nonfinite > 0) {
      if (nonfinite) {
        const int64_t at = first_nonfinite(arena.grads());
        std::fprintf(stderr, "[%s] node %d step %lld: non-finite %s (loss %g%s%s)\n", job.name.c_str(),
                     rank, static_cast<long long>(t + 1), at >= 0 ? "gradient" : "loss", loss_sum,
                     at >= 0 ? ", first in parameter " : "", at >= 0 ? arena.name_at(at).c_str() : "");
      }
      if (job.train.on_nonfinite == "stop") {
        stop_reason = "non-finite loss or gradient at step " + std::to_string(t + 1);
        break;
      }
      ++totals.skipped_steps;
      ++totals.step;
      continue;
    }

    // 3. exchange: g_n -> U_n
    StepStats stats;
    const double c1 = thread_cpu_seconds();
    float* grad = grad_h.pull();
    strategy->normalize_gradient(grad, b.tgt_tokens);
    strategy->exchange(grad, t, stats);
    grad_h.push();
    // 4. clip + Adam
    const double c2 = thread_cpu_seconds();
    const double norm = clip_global_norm(dev, arena.grads().f32(), P, job.train.clip_norm);
    const double lr = job.train.schedule.at(t + 1);
    adam.step(arena.values(), arena.grads(), static_cast<float>(lr));
    // 5. averaging
    const bool averaging = Averager(job.distributed.average_every, false).due(t);
    float* params = averaging ? param_h.pull() : arena.values().f32();
    std::vector<float*> moments;
    if (averaging) moments = {m_h.pull(), v_h.pull()};
    strategy->after_update(params, P, moments, t, stats);
    if (averaging) {
      param_h.push();
      m_h.push();
      v_h.push();
    }
    const double c3 = thread_cpu_seconds();
    // Local work: forward/backward, compression bookkeeping outside collectives, optimizer.
    compute_s += (c3 - c2) + std::max(0.0, (c2 - c1) - stats.comm_seconds);

    auto meas = allgather_doubles(comm, {compute_s, stats.comm_seconds,
                                         static_cast<double>(stats.bytes_sent),
                                         static_cast<double>(stats.bytes_received)});
    double max_compute = 0, max_comm = 0, sent = 0, received = 0;
    for (auto& m : meas) {
      max_compute = std::max(max_compute, m[0]);
      max_comm = std::max(max_comm, m[1]);
      sent += m[2] / N;
      received += m[3] / N;
    }
    ++totals.step;
    totals.tokens += stats.total_tokens;
    totals.bytes_sent += sent;
    for (int i = 0; i < kNetworkPresetCount; ++i)
      totals.modeled_s[i] += max_compute + stats.modeled_comm_seconds_preset[i];
    totals.modeled_configured_s += max_compute + stats.modeled_comm_seconds;
    log_loss += step_loss;
    log_tokens += static_cast<double>(stats.total_tokens);

    if (rank == 0 && (totals.step % job.train.log_every == 0 || stats.averaged)) {
      nlohmann::json j = {{"step", totals.step},
                          {"epoch", epoch + 1},
                          {"tokens", totals.tokens},
                          {"step_tokens", stats.total_tokens},
                          {"train_loss", step_loss / static_cast<double>(stats.total_tokens)},
                          {"lr", lr},
                          {"grad_norm", norm},
                          {"wall_s", wall_seconds() - wall_start},
                          {"nodes", N},
                          {"method", method},
                          {"compute_s", max_compute},
                          {"comm_s", max_comm},
                          {"bytes_sent", sent},
                          {"bytes_received", received}};
      nlohmann::json st = nlohmann::json::object();
      stats.to_json(st);
      if (stats.drop_ratio >= 0) {
        j["rho"] = stats.drop_ratio;
        j["pairs"] = stats.k_selected;
      }
      nlohmann::json mc = nlohmann::json::object(), ms = nlohmann::json::object();
      for (int i = 0; i < kNetworkPresetCount; ++i) {
        mc[network_preset_names()[i]] = stats.modeled_comm_seconds_preset[i];
        ms[network_preset_names()[i]] = max_compute + stats.modeled_comm_seconds_preset[i];
      }
      mc["configured"] = stats.modeled_comm_seconds;
      ms["configured"] = max_compute + stats.modeled_comm_seconds;
      j["modeled_comm_s"] = mc;
      j["modeled_step_s"] = ms;
      j["modeled_time_s"] = totals.modeled_json();
      if (stats.averaged) {
        j["divergence"] = stats.divergence;
        j["divergence_after"] = stats.divergence_after;
      }
      j["strategy"] = st;
      results->append_jsonl("log.jsonl", j);
      std::ostringstream line;
      line << "[" << job.name << "] step " << totals.step << "/" << job.train.max_steps << " epoch "
           << epoch + 1 << " loss " << log_loss / std::max(1.0, log_tokens) << " lr " << lr
           << " " << static_cast<long long>(totals.tokens / std::max(1e-9, wall_seconds() - wall_start))
           << " tok/s";
      progress.line(line.str(), !progress.tty);
      log_loss = log_tokens = 0;
    }

    if (job.valid.every > 0 && totals.step % job.valid.every == 0) validate();
    if (job.train.checkpoint_every > 0 && totals.step % job.train.checkpoint_every == 0) save_checkpoint();
    if (any_stop > 0) {
      stop_reason = "stop signal at step " + std::to_string(totals.step);
      break;
    }
    if (budget_spent > 0) {  // the time budget ends training normally (fairseq's --stop-time-hours)
      ended_by = "time_limit_s";
      break;
    }
  }

  outcome.steps = totals.step;
  if (!stop_reason.empty()) {
    // A signal or time limit: checkpoint what we have (not after a non-finite step).
    if (stop_reason.rfind("non-finite", 0) != 0 &&
        (job.train.checkpoint_every == 0 || totals.step % job.train.checkpoint_every != 0))
      save_checkpoint();
    outcome.reason = stop_reason;
    write_summary("incomplete", stop_reason, nlohmann::json::object());
    if (rank == 0)
      std::fprintf(stderr, "\n[%s] stopped at step %lld (%s); last checkpoint %s; continue with --resume\n",
                   job.name.c_str(), static_cast<long long>(totals.step), stop_reason.c_str(),
                   outcome.last_checkpoint.empty() ? "(none)" : outcome.last_checkpoint.c_str());
    return outcome;
  }

  // The end: a final validation unless the last step had one, then the test set with the
  // best parameters, and a final checkpoint.
  if (job.valid.every == 0 || totals.step % job.valid.every != 0) validate();
  nlohmann::json test = nlohmann::json::object();
  if (job.valid.test_at_end && !job.data->test.empty()) {
    std::vector<float> params = rank == 0 ? best_params : std::vector<float>();
    ValidationResult r = validator.evaluate(comm, params, 0, job.data->test, job.data->test_refs,
                                            false, static_cast<int64_t>(job.data->test.size()));
    if (rank == 0) {
      test = {{"test_bleu", r.bleu.score},
              {"test_chrf", r.chrf.score},
              {"test_bleu_detail", format_bleu(r.bleu)},
              {"test_sentences", r.sentences},
              {"bleu_signature", bleu_signature()}};
      std::string hyps;
      for (auto& h : r.hypotheses) hyps += h + "\n";
      write_file_atomic(job.results_dir + "/test.hyp", hyps);
    }
  }
  if (job.train.checkpoint_every == 0 || totals.step % job.train.checkpoint_every != 0) save_checkpoint();
  outcome.complete = true;
  test["ended_by"] = ended_by;
  write_summary("complete", "", test);
  return outcome;
}

}  // namespace sl
