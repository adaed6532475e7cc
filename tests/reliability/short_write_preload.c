// LD_PRELOAD shim for log_disk_full.sh: the disk fills up in the middle of a line. The
// SL_SHORT_WRITE_NTH-th write(2) to a file whose path ends in SL_SHORT_WRITE_SUFFIX writes
// only the first half of its bytes and returns that short count, and every later write to
// such a file fails with ENOSPC: what write(2) does when the file system fills up part-way
// through a buffer. Other files, and everything when the variables are unset, are untouched.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void*, size_t);
static atomic_long writes_seen;

static int matches(int fd, const char* suffix) {
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) return 0;
  path[n] = '\0';
  const size_t len = strlen(suffix);
  return (size_t)n >= len && strcmp(path + n - len, suffix) == 0;
}

ssize_t write(int fd, const void* buf, size_t count) {
  if (!real_write) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const char* suffix = getenv("SL_SHORT_WRITE_SUFFIX");
  const char* nth = getenv("SL_SHORT_WRITE_NTH");
  if (suffix && nth && matches(fd, suffix)) {
    const long k = atomic_fetch_add(&writes_seen, 1) + 1;
    const long limit = atol(nth);
    if (k > limit) {
      errno = ENOSPC;
      return -1;
    }
    if (k == limit && count > 1) count /= 2;
  }
  return real_write(fd, buf, count);
}
