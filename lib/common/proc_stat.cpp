#include "common/proc_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace sl {

ProcStat::ProcStat(long pid) {
  if (pid <= 0) return;
  char path[32] = "/proc/";
  char digits[24];
  int n = 0;
  for (unsigned long v = static_cast<unsigned long>(pid); v; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  size_t at = std::strlen(path);
  while (n > 0) path[at++] = digits[--n];
  std::memcpy(path + at, "/stat", 6);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t r = ::read(fd, buf_, sizeof buf_ - 1);
  ::close(fd);
  if (r <= 0) return;
  buf_[r] = 0;
  const char* p = std::strrchr(buf_, ')');  // "pid (comm) S ppid pgrp ..."
  if (p && p[1] == ' ' && p[2]) fields_ = p + 2;
}

unsigned long long ProcStat::number(int field) const {
  if (!fields_ || field < 4) return 0;
  const char* f = fields_;
  for (int i = 3; i < field && *f; ++i) {
    while (*f && *f != ' ') ++f;
    while (*f == ' ') ++f;
  }
  unsigned long long v = 0;
  for (; *f >= '0' && *f <= '9'; ++f) v = v * 10 + static_cast<unsigned long long>(*f - '0');
  return v;
}

}  // namespace sl
