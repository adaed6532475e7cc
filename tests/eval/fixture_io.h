#pragma once
// Shared by the eval tests: loading the sacreBLEU fixtures and scratch files.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace sl::test {

inline nlohmann::json load_fixture(const std::string& name) {
  const std::string path = std::string(SL_EVAL_FIXTURES_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open (run scripts/make-bleu-fixtures.py)");
  return nlohmann::json::parse(in);
}

// A fresh directory under $TMPDIR (or /tmp), removed with its files on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/sl-eval-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + templ);
    path_ = buf.data();
  }
  ~ScratchDir() {
    for (const std::string& f : files_) ::unlink(f.c_str());
    ::rmdir(path_.c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `contents` to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& contents) {
    const std::string file = path_ + "/" + name;
    std::ofstream out(file, std::ios::binary);
    out << contents;
    if (!out) throw std::runtime_error(file + ": write failed");
    files_.push_back(file);
    return file;
  }
  // A path in the directory that the caller's command will create.
  std::string reserve(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace sl::test
