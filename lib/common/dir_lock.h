#pragma once
#include <string>

namespace sl {

// An exclusive lock on a results directory for the lifetime of a run: flock(2) on
// DIR/.lock, whose contents name the holder ("pid P host H started T"). A second run on the
// same directory gets an InputError (exit code 2) naming the holder. flock locks die with
// their process, so a lock file left by a killed run is taken over, with a message on stderr
// naming the dead holder. The file is removed when the lock is released.
class DirLock {
 public:
  DirLock() = default;
  // Creates `dir` if needed, then locks it (InputError naming the holder when it is held).
  static DirLock acquire(const std::string& dir);
  DirLock(DirLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  DirLock& operator=(DirLock&& o) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock() { release(); }

  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  void release();

 private:
  int fd_ = -1;
  std::string path_;
};

// The lock file's name inside a results directory.
constexpr const char* kLockFileName = ".lock";

}  // namespace sl
