#pragma once

namespace sl {

// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot (0 if it
// cannot be read). With the pid, it names one process (pids are reused).
unsigned long long process_start_ticks(long pid);

// Which rank of an MPI job on this host ended first, decided by the kernel at the moment of
// death rather than by whichever watcher process the scheduler runs first.
//
// When one rank is killed, the launcher kills the others within a millisecond, and each
// rank's death watcher then wakes up. A watcher woken on the CPU where the launcher also runs
// can lose a race against a watcher of a rank the launcher killed (seen in CI: rank 0 named
// instead of the killed rank 2). So the claim is a System V semaphore operation kept pending
// by each watcher: "D_r -= 1 and, if T == 0, T = 1". Every rank arms D_r with an undo
// adjustment of +1, which the kernel applies in the dying process's exit path (exit_sem, before
// its files are closed and before its parent is told), and that same path completes any pending
// operation it makes possible. So the first rank to die takes T before any other rank can be
// killed, whether or not its watcher has been scheduled yet.
//
// The set: T (0 free, 1 taken), W (watchers attached, for clean-up), a magic value and the
// launcher's pid (so a later job can remove a set whose launcher is gone: one a SIGKILLed
// watcher could not), then D_0 .. D_{N-1}. T, W and D_r start at 0 and 0 is a valid initial
// state, so no rank has to initialise them (System V's create-then-initialise race does not
// arise); the other three every rank writes alike. Its key is derived from the launcher's pid
// and start time on this host (one launcher process per job and host).
//
// All member functions but open_for() are async-signal-safe (plain system calls): take_token()
// runs in crash handlers, and the watcher runs in a child forked from a process that may have
// threads.
class FirstDeathArbiter {
 public:
  enum class Claim { kWon, kNotYet, kFailed };

  // In the rank, before fork. Leaves usable() false where semaphores are unavailable (then
  // the caller falls back to a first-come claim file). Removes this user's sets whose
  // launcher no longer runs first.
  void open_for(long launcher_pid, int rank, int world_size);
  bool usable() const { return id_ >= 0; }

  // The rank: from now on its death, in any way but a clean exit, raises D_r.
  void arm();
  // The rank, on a clean exit: its death raises nothing.
  void disarm();
  // The rank reported its own failure (a crash line, an error before mpi_abort): take T so
  // no watcher prints a line as well. False if another rank had taken it first.
  bool take_token();

  // The watcher: join() when it starts, leave() before it exits (the last one out removes
  // the set). wait_for_first_death() keeps the claim pending for up to `timeout_ms`;
  // claim_now() tries it once without waiting.
  void join();
  void leave();
  Claim wait_for_first_death(int timeout_ms);
  Claim claim_now();

  // The System V semaphore set's id (for tests and ipcs), or -1.
  int set_id() const { return id_; }

 private:
  Claim claim(bool wait, int timeout_ms);
  int id_ = -1;
  int index_ = 0;  // D_r's index in the set
  bool joined_ = false;
};

}  // namespace sl
