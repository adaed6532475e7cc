#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/sentencepiece_vocab.h"
#include "train/checkpoint_file.h"
#include "train/training_job.h"

namespace sl {

// best-model.ckpt's header ("meta"): "step", "bleu", "model" (the model config), "vocab" (the
// SentencePiece model file as the run named it, often relative to where it ran) and, from
// version 2 on ("best_model_version": 2), "vocab_model": that file's bytes in base64, so the
// checkpoint translates from any directory. Version 1 files (no "best_model_version") have
// only the path.
constexpr int kBestModelVersion = 2;

// The vocabulary `translate` decodes a best-model.ckpt with: the embedded model; for a
// version-1 file, the "vocab" file as named (from the working directory), else found
// relative to the checkpoint's directory or one of its parents (a results directory inside
// the directory the run ran in). InputError naming the file and where it was looked for
// when none exists.
SentencePieceVocab best_model_vocab(const CheckpointFile& ckpt, const std::string& ckpt_path);

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
  std::string vocab_base64_;  // the embedded vocabulary, encoded once
};

}  // namespace sl
