#include "train/best_model.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/atomic_file.h"
#include "common/base64.h"
#include "common/input_error.h"
#include "train/checkpoint_file.h"

namespace sl {

namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A version-1 checkpoint's vocabulary file: as named, else (a relative name) under the
// checkpoint's directory or one of its parents.
std::string find_vocab_file(const std::string& named, const std::string& ckpt_path) {
  if (readable(named)) return named;
  std::string looked = "at that absolute path";
  if (!named.empty() && named[0] != '/') {
    char* real = ::realpath(ckpt_path.c_str(), nullptr);
    std::string dir = real ? parent_dir(real) : parent_dir(ckpt_path);
    std::free(real);
    looked = "in the working directory, in " + dir + " and in each of its parents";
    for (;;) {
      const std::string candidate = (dir == "/" ? "" : dir) + "/" + named;
      if (readable(candidate)) return candidate;
      if (dir == "/" || dir == ".") break;
      dir = parent_dir(dir);
    }
  }
  throw InputError(ckpt_path,
                   "its SentencePiece model \"" + named + "\" was not found (looked " + looked +
                       "; the checkpoint predates embedded vocabularies): pass --vocab PATH "
                       "(expected the model file the run was trained with)");
}

// `to` becomes a copy of `from`, atomically. A hard link costs nothing and is safe because
// best-model.ckpt is only ever replaced by rename, never rewritten in place; a filesystem
// without hard links gets a byte copy. When `to` already is `from` (the same inode, as after
// a resume from the checkpoint that linked it), rename(2) succeeds without removing `tmp`,
// so `tmp` is removed in every case.
void link_or_copy(const std::string& from, const std::string& to) {
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  std::remove(tmp.c_str());
  const bool linked =
      ::link(from.c_str(), tmp.c_str()) == 0 && std::rename(tmp.c_str(), to.c_str()) == 0;
  std::remove(tmp.c_str());
  if (!linked) write_file_atomic(to, read_file(from));
}

}  // namespace

SentencePieceVocab best_model_vocab(const CheckpointFile& ckpt, const std::string& ckpt_path) {
  if (ckpt.meta.contains("vocab_model")) {
    const nlohmann::json& v = ckpt.meta["vocab_model"];
    const std::optional<std::string> bytes =
        v.is_string() ? base64_decode(v.get<std::string>()) : std::nullopt;
    if (!bytes)
      throw InputError(ckpt_path + ":/meta/vocab_model",
                       "is not base64 text (expected a SentencePiece model)");
    return SentencePieceVocab::from_bytes(*bytes, ckpt_path + ":/meta/vocab_model");
  }
  if (!ckpt.meta.contains("vocab") || !ckpt.meta["vocab"].is_string())
    throw InputError(ckpt_path, "not a model file written by run-experiment (no vocabulary in it)");
  return SentencePieceVocab::load(
      find_vocab_file(ckpt.meta["vocab"].get<std::string>(), ckpt_path));
}

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
  if (vocab_base64_.empty()) vocab_base64_ = base64_encode(job_.data->vocab->bytes());
  CheckpointFile f;
  f.meta = {{"step", step},
            {"bleu", bleu},
            {"model", to_json(job_.model)},
            {"vocab", job_.data->vocab->path()},
            {"best_model_version", kBestModelVersion},
            {"vocab_model", vocab_base64_}};
  f.arrays.emplace_back("params", params_);
  write_checkpoint_file(path_, f);
  return true;
}

}  // namespace sl
