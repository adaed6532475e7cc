#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "data/batch_generator.h"
#include "train/results_dir.h"
#include "train/run_totals.h"
#include "train/training_job.h"
#include "train/training_step.h"
#include "train/validator.h"

namespace sl {

// Everything a run writes for people and plots: config.json, log.jsonl, valid.jsonl,
// summary.json, test.hyp (fields in docs/LOG_FORMAT.md) and the progress line on stderr.
// Rank 0 owns the files; on other ranks every call is a no-op, so nodes call it alike.
class RunLogger {
 public:
  RunLogger(const TrainingJob& job, int rank, int nodes, size_t parameters);

  // The resolved config; on resume, log.jsonl and valid.jsonl lose their lines past `step`
  // (all of them when no checkpoint was committed: resumed_step -1) so the resumed run's logs
  // equal an uninterrupted run's.
  void start(int64_t resumed_step);
  // A log.jsonl line every log_every steps and on averaging steps, with the progress line.
  void step(const StepReport& r, const RunTotals& totals, uint64_t epoch, double wall_s);
  void validation(const ValidationResult& v, const RunTotals& totals, uint64_t epoch,
                  double wall_s);
  void test_hypotheses(const ValidationResult& r) const;
  // summary.json: status "complete" | "incomplete", with `extra` fields (test scores, ...).
  void summary(const std::string& status, const std::string& reason, const RunTotals& totals,
               const BatchPosition& position, double wall_s, const std::string& last_checkpoint,
               const nlohmann::json& extra) const;
  void message(const std::string& line) const;  // one line on stderr (rank 0)

 private:
  void progress(const std::string& line, bool final_line) const;

  const TrainingJob& job_;
  int nodes_;
  size_t parameters_;
  std::string method_;
  std::unique_ptr<ResultsDir> dir_;  // rank 0 only
  bool tty_;
  double loss_since_line_ = 0, tokens_since_line_ = 0;
};

}  // namespace sl
