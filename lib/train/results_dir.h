#pragma once
#include <nlohmann/json.hpp>
#include <string>

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

 private:
  std::string path_;
};

}  // namespace sl
