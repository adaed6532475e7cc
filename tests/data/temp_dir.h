#pragma once
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include <ftw.h>

namespace sl::test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents at scope end.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/sl-data-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    auto remove = [](const char* p, const struct stat*, int, struct FTW*) {
      return std::remove(p);
    };
    nftw(path_.c_str(), remove, 16, FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(file(name), std::ios::binary);
    out << bytes;
    return file(name);
  }

 private:
  std::string path_;
};

}  // namespace sl::test
