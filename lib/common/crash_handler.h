#pragma once
#include <string>
#include <vector>

namespace sl {

// Crashes must never turn into hangs, and must say in one line what happened and where.
//
// install_crash_handlers() installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
// that run on an alternate stack (so a stack overflow is reported too), write one line
//   "<prog>: fatal: <context>: SIGSEGV (invalid memory access: a bug or a stack overflow)[; <peers>]"
// with async-signal-safe calls only, then re-raise the signal with its default action, so the
// process dies of it at once (exit status 128+N under a shell; mpiexec then ends the job).
// Call it again after MPI_Init: MPI libraries (UCX) install handlers of their own, when
// loaded and in MPI_Init (UCX's print a backtrace, and hung in a process whose stack had
// overflowed); ours replace them.
void install_crash_handlers(const char* program);

// This rank failed and its message was printed (e.g. before mpi_abort): its death watcher
// stays quiet.
void note_failure_reported();

// The "<context>" of the crash line, e.g. "rank 2 of 4 (pid 1234 on host n1)".
void set_crash_context(const std::string& context);

// The processes of the other ranks of an MPI job. Peers on this host can be checked for
// death (kill(pid, 0), zombies count as dead); peers elsewhere cannot.
struct PeerProcess {
  int rank = 0;
  long pid = 0;
  bool same_host = false;
};
void set_peer_processes(const std::vector<PeerProcess>& peers);

// When one rank of an MPI job is killed (SIGKILL, the OOM killer), the launcher kills the
// others at once, and MPICH's hydra then names the wrong process. start_death_watcher() forks
// a small watcher process (before MPI_Init) that waits for this rank to end. A clean exit
// (returning from main) or a crash this module reported tells it so; otherwise, if it is the
// first watcher of this job on this host to see its rank end, it prints one line
//   "<prog>: rank R of N (pid P on HOST) was the first rank here to end without a clean exit
//    (killed by a signal, crashed or aborted)"
// Which rank ended first is decided in the kernel (first_death_arbiter.h), so the line names
// the right rank however the watchers are scheduled. Does nothing when fork fails.
void start_death_watcher(int rank, int world_size);

// "rank 3 (pid 4567) is no longer running" for every peer on this host that died, joined by
// "; ", or "" when none is known to have died.
std::string describe_dead_peers();

}  // namespace sl
