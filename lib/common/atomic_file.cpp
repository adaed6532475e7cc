#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/input_error.h"

namespace sl {

namespace {
std::string errno_text() { return std::strerror(errno); }

void write_all(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path + ": write failed: " + errno_text());
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(tmp + ": cannot create: " + errno_text());
  try {
    write_all(fd, contents.data(), contents.size(), tmp);
    if (::fsync(fd) != 0) throw std::runtime_error(tmp + ": fsync failed: " + errno_text());
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(tmp + ": close failed: " + errno_text());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": rename failed: " + errno_text());
  }
}

void append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for append: " + errno_text());
  // A write that fails part-way (disk full) must not leave half a line that every reader of
  // the file would trip over: cut the file back to where this line began. Shrinking a file
  // needs no free space.
  const off_t end = ::lseek(fd, 0, SEEK_END);
  std::string buf = line + "\n";
  try {
    write_all(fd, buf.data(), buf.size(), path);
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (end >= 0 && ::ftruncate(fd, end) == 0)
      what += " (the file was cut back to its last complete line)";
    else
      what += " (and cutting the file back to its last complete line failed: " + errno_text() + ")";
    ::close(fd);
    throw std::runtime_error(what);
  }
  ::close(fd);
}

std::string read_file(const std::string& path) {
  struct stat st;
  // An ifstream opens a directory and reads nothing: it would pass for an empty file.
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError(path, "is a directory; expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void make_dirs(const std::string& path) {
  if (path.empty()) return;
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw InputError(path, "cannot create directory (" + errno_text() + ")");
  }
  if (::access(path.c_str(), W_OK) != 0)
    throw InputError(path, "directory is not writable (" + errno_text() + ")");
}

}  // namespace sl
