#include "common/first_death_arbiter.h"

#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace sl {

namespace {

constexpr unsigned short kToken = 0;
constexpr unsigned short kWatchers = 1;
constexpr int kFirstRank = 2;

int semop_retrying(int id, sembuf* ops, size_t n) {
  int r;
  do {
    r = ::semop(id, ops, n);
  } while (r != 0 && errno == EINTR);
  return r;
}

}  // namespace

unsigned long long process_start_ticks(long pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char st[1024];
  const ssize_t r = ::read(fd, st, sizeof st - 1);
  ::close(fd);
  if (r <= 0) return 0;
  st[r] = 0;
  const char* p = std::strrchr(st, ')');  // comm may hold spaces and parentheses
  if (!p) return 0;
  ++p;
  for (int field = 3; field < 22 && *p; ++field) {  // skip fields 3 ("state") to 21
    while (*p == ' ') ++p;
    while (*p && *p != ' ') ++p;
  }
  unsigned long long v = 0;
  while (*p == ' ') ++p;
  for (; *p >= '0' && *p <= '9'; ++p) v = v * 10 + static_cast<unsigned long long>(*p - '0');
  return v;
}

void FirstDeathArbiter::open_for(long launcher_pid, int rank, int world_size) {
  id_ = -1;
  if (rank < 0 || world_size <= 0 || rank >= world_size || world_size > 30000) return;
  // pid and start time together name one launcher process (a pid alone is reused).
  unsigned long long h = 1469598103934665603ULL;
  for (unsigned long long v : {static_cast<unsigned long long>(launcher_pid), process_start_ticks(launcher_pid)}) {
    h ^= v;
    h *= 1099511628211ULL;
  }
  key_t key = static_cast<key_t>((h ^ (h >> 32)) & 0x7fffffffULL);
  if (key == IPC_PRIVATE) key = 1;
  id_ = ::semget(key, world_size + kFirstRank, IPC_CREAT | 0600);
  index_ = kFirstRank + rank;
}

void FirstDeathArbiter::arm() {
  if (id_ < 0) return;
  // Net value 0, undo adjustment +1: applied by the kernel when this process dies.
  sembuf ops[2] = {{static_cast<unsigned short>(index_), 1, 0},
                   {static_cast<unsigned short>(index_), -1, SEM_UNDO}};
  if (semop_retrying(id_, ops, 2) != 0) id_ = -1;
}

void FirstDeathArbiter::disarm() {
  if (id_ < 0) return;
  sembuf ops[2] = {{static_cast<unsigned short>(index_), 1, SEM_UNDO},
                   {static_cast<unsigned short>(index_), -1, 0}};
  semop_retrying(id_, ops, 2);
}

bool FirstDeathArbiter::take_token() {
  if (id_ < 0) return false;
  sembuf ops[2] = {{kToken, 0, IPC_NOWAIT}, {kToken, 1, 0}};
  return semop_retrying(id_, ops, 2) == 0;
}

void FirstDeathArbiter::join() {
  if (id_ < 0) return;
  sembuf op = {kWatchers, 1, SEM_UNDO};  // a watcher killed outright still leaves the count right
  joined_ = semop_retrying(id_, &op, 1) == 0;
  if (!joined_) id_ = -1;
}

void FirstDeathArbiter::leave() {
  if (id_ < 0 || !joined_) return;
  sembuf op = {kWatchers, -1, SEM_UNDO | IPC_NOWAIT};
  if (semop_retrying(id_, &op, 1) == 0 && ::semctl(id_, kWatchers, GETVAL) == 0) ::semctl(id_, 0, IPC_RMID);
  id_ = -1;
}

FirstDeathArbiter::Claim FirstDeathArbiter::claim(bool wait, int timeout_ms) {
  if (id_ < 0) return Claim::kFailed;
  const short flag = wait ? 0 : IPC_NOWAIT;
  sembuf ops[3] = {{static_cast<unsigned short>(index_), -1, flag}, {kToken, 0, flag}, {kToken, 1, flag}};
  struct timespec t{timeout_ms / 1000, static_cast<long>(timeout_ms % 1000) * 1000000L};
  if (::semtimedop(id_, ops, 3, wait ? &t : nullptr) == 0) return Claim::kWon;
  return (errno == EAGAIN || errno == EINTR) ? Claim::kNotYet : Claim::kFailed;
}

FirstDeathArbiter::Claim FirstDeathArbiter::wait_for_first_death(int timeout_ms) { return claim(true, timeout_ms); }

FirstDeathArbiter::Claim FirstDeathArbiter::claim_now() { return claim(false, 0); }

}  // namespace sl
