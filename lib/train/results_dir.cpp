#include "train/results_dir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/input_error.h"

namespace sl {

ResultsDir::ResultsDir(std::string path) : path_(std::move(path)) { make_dirs(path_); }

namespace {
// A results file that cannot be written ends the run; say how to go on from there.
template <class Write>
void with_continue_hint(const Write& write) {
  try {
    write();
  } catch (const InputError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) +
                             "; free space (or fix the cause), then continue from the last "
                             "checkpoint with the same command and --resume");
  }
}
}  // namespace

void ResultsDir::write_json(const std::string& name, const nlohmann::json& j) const {
  with_continue_hint([&] { write_file_atomic(file(name), j.dump(2) + "\n"); });
}

void ResultsDir::append_jsonl(const std::string& name, const nlohmann::json& j) const {
  with_continue_hint([&] { append_line(file(name), j.dump()); });
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

namespace {

bool is_dir(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

void remove_path(const std::string& p) {
  if (is_dir(p)) {
    for (const std::string& e : entries(p)) remove_path(p + "/" + e);
    if (::rmdir(p.c_str()) != 0 && errno != ENOENT)
      throw std::runtime_error(p + ": cannot remove: " + std::strerror(errno));
  } else if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
    throw std::runtime_error(p + ": cannot remove: " + std::strerror(errno));
  }
}

// "<anything>.tmp.<digits>"
bool is_temp_name(const std::string& n) {
  const auto p = n.rfind(".tmp.");
  if (p == std::string::npos || p + 5 >= n.size()) return false;
  for (size_t i = p + 5; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > '9') return false;
  return true;
}

void collect_temp(const std::string& dir, int depth, std::vector<std::string>& out) {
  for (const std::string& e : entries(dir)) {
    const std::string p = dir + "/" + e;
    if (is_temp_name(e) && !is_dir(p))
      out.push_back(p);
    else if (depth > 0 && is_dir(p))
      collect_temp(p, depth - 1, out);
  }
}

}  // namespace

const std::vector<std::string>& ResultsDir::run_file_names() {
  static const std::vector<std::string> names = {"config.json", "log.jsonl",       "valid.jsonl", "summary.json",
                                                 "test.hyp",    "best-model.ckpt", "checkpoints"};
  return names;
}

bool ResultsDir::holds_run_files(const std::string& dir) {
  struct stat st;
  for (const std::string& n : run_file_names())
    if (::lstat((dir + "/" + n).c_str(), &st) == 0) return true;
  return false;
}

void ResultsDir::remove_run_files() const {
  remove_orphan_temp_files();
  for (const std::string& n : run_file_names()) remove_path(file(n));
}

std::vector<std::string> ResultsDir::remove_orphan_temp_files() const {
  std::vector<std::string> found;
  collect_temp(path_, /*depth: checkpoints/step-N/=*/2, found);
  for (const std::string& p : found) remove_path(p);
  return found;
}

}  // namespace sl
