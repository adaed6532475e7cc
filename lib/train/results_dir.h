#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sl {

// results/<experiment>/: config.json (resolved config), log.jsonl (one object per logged
// training step), valid.jsonl (one per validation), summary.json, checkpoints/.
// Whole files are written atomically; JSONL files are appended line by line, and on resume
// truncated back to the checkpoint's step so a resumed run's logs equal an uninterrupted run's.
class ResultsDir {
 public:
  explicit ResultsDir(std::string path);  // creates it; InputError when not writable

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::string checkpoint_dir() const { return path_ + "/checkpoints"; }

  void write_json(const std::string& name, const nlohmann::json& j) const;
  void append_jsonl(const std::string& name, const nlohmann::json& j) const;
  // Keeps only the lines whose "step" is <= max_step (atomic rewrite); a torn last line is dropped.
  void truncate_jsonl(const std::string& name, long long max_step) const;

  // The files and folders a run writes here (config.json, log.jsonl, valid.jsonl,
  // summary.json, test.hyp, best-model.ckpt, checkpoints/). Other files are never touched.
  static const std::vector<std::string>& run_file_names();
  bool has_run_files() const { return holds_run_files(path_); }
  // Any of run_file_names() in `dir` (not only log.jsonl: a run shorter than train.log_every
  // has none), without creating `dir` as the constructor does: --dry-run makes no folder.
  static bool holds_run_files(const std::string& dir);
  // Removes them (and temporary files), so the next run's files equal a run into an empty
  // directory (--overwrite, or --resume without a committed checkpoint).
  void remove_run_files() const;
  // Removes "<name>.tmp.<pid>" files (write_file_atomic's) left here and under checkpoints/
  // by a killed run; returns their paths. Call only while holding the directory's lock.
  std::vector<std::string> remove_orphan_temp_files() const;

 private:
  std::string path_;
};

}  // namespace sl
