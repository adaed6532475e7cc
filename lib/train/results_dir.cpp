#include "train/results_dir.h"

#include <sys/stat.h>

#include <sstream>

#include "common/atomic_file.h"

namespace sl {

ResultsDir::ResultsDir(std::string path) : path_(std::move(path)) { make_dirs(path_); }

void ResultsDir::write_json(const std::string& name, const nlohmann::json& j) const {
  write_file_atomic(file(name), j.dump(2) + "\n");
}

void ResultsDir::append_jsonl(const std::string& name, const nlohmann::json& j) const {
  append_line(file(name), j.dump());
}

void ResultsDir::truncate_jsonl(const std::string& name, long long max_step) const {
  struct stat st;
  if (::stat(file(name).c_str(), &st) != 0) return;
  std::istringstream in(read_file(file(name)));
  std::string line, kept;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) continue;  // torn line from a kill
    if (j.contains("step") && j["step"].get<long long>() > max_step) continue;
    kept += line + "\n";
  }
  write_file_atomic(file(name), kept);
}

}  // namespace sl
