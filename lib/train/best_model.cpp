#include "train/best_model.h"

#include <unistd.h>

#include <cstdio>

#include "common/atomic_file.h"
#include "train/checkpoint_file.h"

namespace sl {

namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// `to` becomes a copy of `from`, atomically. A hard link costs nothing and is safe because
// best-model.ckpt is only ever replaced by rename, never rewritten in place; a filesystem
// without hard links gets a byte copy.
void link_or_copy(const std::string& from, const std::string& to) {
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  std::remove(tmp.c_str());
  if (::link(from.c_str(), tmp.c_str()) == 0 && std::rename(tmp.c_str(), to.c_str()) == 0) return;
  std::remove(tmp.c_str());
  write_file_atomic(to, read_file(from));
}

}  // namespace

void BestModel::save_into(const std::string& step_dir) const {
  if (readable(path_)) link_or_copy(path_, step_dir + "/best-model.ckpt");
}

void BestModel::restore_from(const std::string& step_dir, int64_t best_step) {
  const std::string saved = step_dir + "/best-model.ckpt";
  if (readable(saved)) {
    link_or_copy(saved, path_);
  } else if (best_step == 0) {
    // No validation had improved by the checkpoint: a best-model.ckpt here is from after it.
    std::remove(path_.c_str());
    params_.clear();
    return;
  }
  // (A checkpoint written before checkpoints carried the best model: keep the file as it is.)
  load_if_present();
}

void BestModel::load_if_present() {
  if (readable(path_))
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
