#include "train/best_model.h"

#include <unistd.h>

#include "train/checkpoint_file.h"

namespace sl {

void BestModel::load_if_present() {
  if (access(path_.c_str(), R_OK) == 0)
    params_ = read_checkpoint_file(path_).array("params", path_);
}

bool BestModel::offer(int64_t step, double bleu, std::vector<float>&& params, double& best_bleu,
                      int64_t& best_step) {
  if (bleu <= best_bleu) return false;
  best_bleu = bleu;
  best_step = step;
  params_ = std::move(params);
  CheckpointFile f;
  f.meta = {{"step", step},
            {"bleu", bleu},
            {"model", to_json(job_.model)},
            {"vocab", job_.data->vocab->path()}};
  f.arrays.emplace_back("params", params_);
  write_checkpoint_file(path_, f);
  return true;
}

}  // namespace sl
