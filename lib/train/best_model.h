#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "train/training_job.h"

namespace sl {

// best-model.ckpt: the parameters of the best dev BLEU so far (rank 0), which the test set
// is decoded with at the end and `translate` loads.
class BestModel {
 public:
  explicit BestModel(const TrainingJob& job)
      : job_(job), path_(job.results_dir + "/best-model.ckpt") {}

  // Each checkpoint carries the best model as of its step, so a resume restores the one that
  // matches the resumed totals, not one written by a validation after the checkpoint (which
  // the resumed run replays, and rewrites, deterministically).
  void save_into(const std::string& step_dir) const;
  void restore_from(const std::string& step_dir, int64_t best_step);
  // Keeps `params` (and writes the file) when `bleu` beats `best_bleu`; updates the totals.
  bool offer(int64_t step, double bleu, std::vector<float>&& params, double& best_bleu,
             int64_t& best_step);
  const std::vector<float>& params() const { return params_; }

 private:
  void load_if_present();
  const TrainingJob& job_;
  std::string path_;
  std::vector<float> params_;
};

}  // namespace sl
