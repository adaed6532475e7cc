#include "common/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/atomic_file.h"
#include "common/input_error.h"

namespace sl {

namespace {

std::string read_fd(int fd) {
  std::string s;
  char buf[512];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string host_name() {
  char h[256] = {0};
  if (::gethostname(h, sizeof h - 1) != 0) return "?";
  return h;
}

}  // namespace

DirLock& DirLock::operator=(DirLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

DirLock DirLock::acquire(const std::string& dir) {
  make_dirs(dir);
  const std::string path = dir + "/" + kLockFileName;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw InputError(path, std::string("cannot create the results-directory lock: ") + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder = read_fd(fd);
      ::close(fd);
      if (err == EWOULDBLOCK) {
        if (holder.empty()) holder = "another process (it has not written its name yet)";
        throw DirBusyError(path, "the results directory is in use by " + holder +
                                   " (expected no other run on it; wait for that run to end, "
                                   "stop it, or choose another --output-dir)");
      }
      throw InputError(path, std::string("cannot lock: ") + std::strerror(err));
    }
    // The holder before us may have removed the file between our open and flock: lock the
    // file that is at `path` now, or try again.
    struct stat a, b;
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string old = read_fd(fd);
    if (!old.empty())
      std::fprintf(stderr, "run-experiment: taking over the lock %s left by %s, which is no longer running\n",
                   path.c_str(), old.c_str());
    char when[32] = "?";
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    if (::gmtime_r(&now, &tm)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const std::string me =
        "run-experiment pid " + std::to_string(::getpid()) + " on host " + host_name() + " (started " + when + ")";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      const int err = errno;
      ::close(fd);
      throw InputError(path, std::string("cannot write the lock holder: ") + std::strerror(err));
    }
    DirLock l;
    l.fd_ = fd;
    l.path_ = path;
    return l;
  }
  throw InputError(path, "the lock file keeps being replaced by another process");
}

void DirLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before unlocking, so a waiting process re-checks the inode
  ::close(fd_);
  fd_ = -1;
}

}  // namespace sl
