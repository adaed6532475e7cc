#include "train/run_logger.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/atomic_file.h"
#include "eval/metrics/bleu.h"
#include "eval/metrics/chrf.h"
#include "tensor/cpu/blas_library.h"
#include "train/kernel_record.h"

namespace sl {

RunLogger::RunLogger(const TrainingJob& job, int rank, int nodes, size_t parameters)
    : job_(job),
      nodes_(nodes),
      parameters_(parameters),
      method_(job.distributed.method_name()),
      tty_(job.progress_on_tty && rank == 0 && ::isatty(2)) {
  if (rank == 0) dir_ = std::make_unique<ResultsDir>(job.results_dir);
}

void RunLogger::start(int64_t resumed_step) {
  if (!dir_) return;
  // --resume without a committed checkpoint starts from step 0: no old line may stay
  // (run-experiment also clears the directory first; this keeps the trainer right alone).
  if (resumed_step >= 0 || job_.resume) {
    dir_->truncate_jsonl("log.jsonl", std::max<int64_t>(resumed_step, 0));
    dir_->truncate_jsonl("valid.jsonl", std::max<int64_t>(resumed_step, 0));
  }
  dir_->write_json("config.json", job_.resolved_config);
  // The run log's header: which kernels compute this run (a generic BLAS core costs 3-4x).
  try {
    std::fprintf(stderr, "[%s] CPU BLAS: %s\n", job_.name.c_str(), blas::describe().c_str());
    static bool warned = false;  // one warning line per process, not per suite experiment
    if (!blas::info().warning.empty() && !warned) {
      std::fprintf(stderr, "run-experiment: warning: %s\n", blas::info().warning.c_str());
      warned = true;
    }
  } catch (const std::exception& x) {
    std::fprintf(stderr, "[%s] CPU BLAS: not loaded (%s)\n", job_.name.c_str(), x.what());
  }
  for (const std::string& w : job_.distributed.setting_warnings(job_.train.max_steps))
    std::fprintf(stderr, "[%s] warning: %s\n", job_.name.c_str(), w.c_str());
}

void RunLogger::step(const StepReport& r, const RunTotals& totals, uint64_t epoch, double wall_s) {
  if (!dir_) return;
  const StepStats& stats = r.stats;
  loss_since_line_ += r.loss_sum;
  tokens_since_line_ += static_cast<double>(stats.total_tokens);
  if (totals.step % job_.train.log_every != 0 && !stats.averaged) return;
  nlohmann::json j = {{"step", totals.step},
                      {"epoch", epoch + 1},
                      {"tokens", totals.tokens},
                      {"step_tokens", stats.total_tokens},
                      {"train_loss", r.loss_sum / static_cast<double>(stats.total_tokens)},
                      {"lr", r.lr},
                      {"grad_norm", r.grad_norm},
                      {"wall_s", wall_s},
                      {"nodes", nodes_},
                      {"method", method_},
                      {"compute_s", r.max_compute_s},
                      {"comm_s", r.max_comm_s},
                      {"comm_min_s", r.min_comm_s},
                      {"bytes_sent", r.bytes_sent},
                      {"bytes_received", r.bytes_received},
                      {"modeled_comm_s", stats.modeled_comm.to_json()},
                      {"modeled_step_s", stats.modeled_comm.plus(r.max_compute_s).to_json()},
                      {"modeled_time_s", totals.modeled_json()},
                      {"comm_model", totals.comm_model}};
  nlohmann::json st = nlohmann::json::object();
  stats.to_json(st);
  j["strategy"] = st;
  // The headline sparse and averaging fields, also at the top level for plots and jq.
  for (const char* key : {"rho", "pairs", "divergence", "divergence_after"})
    if (st.contains(key)) j[key] = st[key];
  dir_->append_jsonl("log.jsonl", j);
  std::ostringstream line;
  line << "[" << job_.name << "] step " << totals.step << "/" << job_.train.max_steps << " epoch "
       << epoch + 1 << " loss " << loss_since_line_ / std::max(1.0, tokens_since_line_) << " lr "
       << r.lr << " " << static_cast<long long>(totals.tokens / std::max(1e-9, wall_s)) << " tok/s";
  progress(line.str(), !tty_);
  loss_since_line_ = tokens_since_line_ = 0;
}

void RunLogger::validation(const ValidationResult& v, const RunTotals& totals, uint64_t epoch,
                           double wall_s) {
  if (!dir_) return;
  const int beam = job_.valid.decode.beam_size;
  nlohmann::json j = {{"step", totals.step},
                      {"epoch", epoch + 1},
                      {"tokens", totals.tokens},
                      {"wall_s", wall_s},
                      {"modeled_time_s", totals.modeled_json()},
                      {"comm_model", totals.comm_model},
                      {"dev_ce", v.ce},
                      {"dev_ppl", std::exp(v.ce)},
                      {"bleu", v.bleu.score},
                      {"chrf", v.chrf.score},
                      {"bleu_signature", bleu_signature()},
                      {"chrf_signature", chrf_signature()},
                      {"decode", beam == 1 ? "greedy" : "beam" + std::to_string(beam)},
                      {"sentences", v.sentences}};
  dir_->append_jsonl("valid.jsonl", j);
  progress("[" + job_.name + "] step " + std::to_string(totals.step) + " dev ce " +
               std::to_string(v.ce) + " BLEU " + std::to_string(v.bleu.score),
           true);
}

void RunLogger::test_hypotheses(const ValidationResult& r) const {
  if (!dir_) return;
  std::string hyps;
  for (auto& h : r.hypotheses) hyps += h + "\n";
  write_file_atomic(job_.results_dir + "/test.hyp", hyps);
}

void RunLogger::summary(const std::string& status, const std::string& reason,
                        const RunTotals& totals, const BatchPosition& position, double wall_s,
                        const std::string& last_checkpoint, const nlohmann::json& extra) const {
  if (!dir_) return;
  nlohmann::json s = {
      {"experiment", job_.name},
      {"status", status},
      {"steps", totals.step},
      {"epochs", position.epoch + (position.batch > 0 ? 1 : 0)},
      {"tokens", totals.tokens},
      {"skipped_steps", totals.skipped_steps},
      {"wall_s", wall_s},
      {"modeled_time_s", totals.modeled_json()},
      {"comm_model", totals.comm_model},
      {"best_dev_bleu", totals.best_bleu < 0 ? nlohmann::json() : nlohmann::json(totals.best_bleu)},
      {"best_step", totals.best_step},
      {"last_checkpoint", last_checkpoint},
      {"nodes", nodes_},
      {"method", method_},
      {"model", to_string(job_.model.type)},
      {"parameters", parameters_},
      {"bytes_per_step", totals.step ? totals.bytes_sent / totals.step : 0.0},
      {"train_pairs", job_.data ? static_cast<int64_t>(job_.data->train.size()) : 0},
      {"dropped_pairs", job_.data ? job_.data->dropped_pairs : 0},
      {"blas", blas_record()},
      {"kernels", totals.kernels}};
  if (!reason.empty()) s["reason"] = reason;
  for (auto it = extra.begin(); it != extra.end(); ++it) s[it.key()] = it.value();
  dir_->write_json("summary.json", s);
}

void RunLogger::message(const std::string& line) const {
  if (dir_) std::fprintf(stderr, "%s\n", line.c_str());
}

void RunLogger::progress(const std::string& s, bool final_line) const {
  if (tty_) {
    std::fprintf(stderr, "\r%-100s%s", s.c_str(), final_line ? "\n" : "");
  } else if (final_line) {
    std::fprintf(stderr, "%s\n", s.c_str());
  }
  std::fflush(stderr);
}

}  // namespace sl
