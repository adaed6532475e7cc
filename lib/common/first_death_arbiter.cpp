#include "common/first_death_arbiter.h"

#include "common/proc_stat.h"

#include <signal.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

namespace sl {

namespace {

constexpr unsigned short kToken = 0;
constexpr unsigned short kWatchers = 1;
constexpr unsigned short kMagic = 2;           // kMagicValue: a set of ours
constexpr unsigned short kLauncherHigh = 3;    // the launcher's pid, in two 15-bit halves
constexpr unsigned short kLauncherLow = 4;
constexpr int kFirstRank = 5;
constexpr int kMagicValue = 0x534c;  // "SL"

union SemArg {  // semctl's fourth argument, which the caller must declare
  int val;
  semid_ds* buf;
  unsigned short* array;
  seminfo* info;
};

int semop_retrying(int id, sembuf* ops, size_t n) {
  int r;
  do {
    r = ::semop(id, ops, n);
  } while (r != 0 && errno == EINTR);
  return r;
}

// The launcher pid a set of ours records, or -1 if the set is not one of ours.
long recorded_launcher(int id) {
  if (::semctl(id, kMagic, GETVAL) != kMagicValue) return -1;
  const int high = ::semctl(id, kLauncherHigh, GETVAL), low = ::semctl(id, kLauncherLow, GETVAL);
  if (high < 0 || low < 0 || high > 0x7fff) return -1;
  return (static_cast<long>(high) << 15) | low;
}

// Removes this user's sets whose launcher is gone: a job whose last watcher was SIGKILLed (an
// OOM kill of the whole job, scancel after its grace time) could not remove its own.
void remove_sets_of_dead_launchers() {
  seminfo info{};
  SemArg arg;
  arg.info = &info;
  const int highest = ::semctl(0, 0, SEM_INFO, arg);
  for (int i = 0; i <= highest; ++i) {
    semid_ds ds{};
    arg.buf = &ds;
    const int id = ::semctl(i, 0, SEM_STAT, arg);
    if (id < 0 || ds.sem_perm.uid != ::geteuid() || ds.sem_nsems <= static_cast<unsigned long>(kFirstRank)) continue;
    // No watcher attached (W has undo, so a killed one counts out) and the launcher gone: both,
    // since a launcher in another pid namespace sharing this IPC namespace looks gone.
    const long launcher = recorded_launcher(id);
    if (launcher > 0 && ::semctl(id, kWatchers, GETVAL) == 0 && ::kill(static_cast<pid_t>(launcher), 0) != 0 &&
        errno == ESRCH)
      ::semctl(id, 0, IPC_RMID);
  }
}

}  // namespace

unsigned long long process_start_ticks(long pid) { return ProcStat(pid).number(22); }

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
  remove_sets_of_dead_launchers();
  id_ = ::semget(key, world_size + kFirstRank, IPC_CREAT | 0600);
  index_ = kFirstRank + rank;
  if (id_ < 0) return;
  // Every rank writes the same values, so it does not matter which one is first.
  const int values[3][2] = {{kLauncherHigh, static_cast<int>((launcher_pid >> 15) & 0x7fff)},
                            {kLauncherLow, static_cast<int>(launcher_pid & 0x7fff)},
                            {kMagic, kMagicValue}};
  for (const auto& v : values) {
    SemArg arg;
    arg.val = v[1];
    if (::semctl(id_, v[0], SETVAL, arg) != 0) {
      id_ = -1;
      return;
    }
  }
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
