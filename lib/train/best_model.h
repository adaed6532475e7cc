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

  void load_if_present();  // on resume
  // Keeps `params` (and writes the file) when `bleu` beats `best_bleu`; updates the totals.
  bool offer(int64_t step, double bleu, std::vector<float>&& params, double& best_bleu,
             int64_t& best_step);
  const std::vector<float>& params() const { return params_; }

 private:
  const TrainingJob& job_;
  std::string path_;
  std::vector<float> params_;
};

}  // namespace sl
