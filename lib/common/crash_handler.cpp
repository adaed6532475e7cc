#include "common/crash_handler.h"

#include "common/first_death_arbiter.h"
#include "common/proc_stat.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sl {

namespace {

constexpr int kMaxPeers = 4096;
char g_program[64] = "run-experiment";
char g_context[256] = "";
PeerProcess g_peers[kMaxPeers];
volatile int g_peer_count = 0;
alignas(16) char g_alt_stack[1 << 16];
int g_watcher_fd = -1;  // write end of the pipe to the death watcher
pid_t g_watcher_pid = -1;
bool g_watcher_started = false;
FirstDeathArbiter g_arbiter;
constexpr int kWakeSignal = SIGUSR2;  // wakes the watcher from its wait (the rank's death sends it too)

// 'x': a clean exit; 'c': this rank reported its own failure, so no watcher prints a line.
void tell_watcher(char what) {
  if (g_watcher_fd < 0) return;
  if (what == 'x')
    g_arbiter.disarm();
  else
    g_arbiter.take_token();
  ssize_t ignored = ::write(g_watcher_fd, &what, 1);
  (void)ignored;
  ::close(g_watcher_fd);
  g_watcher_fd = -1;
  if (g_watcher_pid > 0) ::kill(g_watcher_pid, kWakeSignal);
}

void tell_watcher_clean_exit() { tell_watcher('x'); }

// A tiny async-signal-safe string builder.
struct Line {
  char buf[1024];
  size_t n = 0;
  void add(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void add(long v) {
    char tmp[24];
    int i = 0;
    const bool neg = v < 0;
    unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
    do {
      tmp[i++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u && i < 22);
    if (neg) tmp[i++] = '-';
    while (i > 0 && n + 1 < sizeof buf) buf[n++] = tmp[--i];
  }
};

// Dead, or a zombie not yet reaped by its launcher. Async-signal-safe.
bool pid_gone(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  const ProcStat st(pid);
  if (!st.ok()) return false;
  if (st.state() == 'Z' || st.state() == 'X') return true;
  // A process killed a moment ago is still "running" while the kernel tears it down; its
  // memory is already gone (that is what makes UCX abort us), and PF_EXITING says so.
  const unsigned long long flags = st.number(9);
  constexpr unsigned long long kPfExiting = 0x4;
  return (flags & kPfExiting) != 0;
}

void add_dead_peers(Line& l, const char* sep_first) {
  const char* sep = sep_first;
  for (int i = 0; i < g_peer_count; ++i) {
    const PeerProcess& p = g_peers[i];
    if (!p.same_host || !pid_gone(p.pid)) continue;
    l.add(sep);
    l.add("rank ");
    l.add(static_cast<long>(p.rank));
    l.add(" (pid ");
    l.add(p.pid);
    l.add(") is no longer running");
    sep = "; ";
  }
}

const char* describe_signal(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access: a bug, or a stack overflow)";
    case SIGBUS:
      return "SIGBUS (bad memory access, e.g. a truncated memory-mapped file)";
    case SIGILL:
      return "SIGILL (illegal instruction: a binary built for another CPU?)";
    case SIGFPE:
      return "SIGFPE (arithmetic fault)";
    case SIGABRT:
      return "SIGABRT (abort: a failed assertion or an error inside a library)";
  }
  return "a fatal signal";
}

void on_fatal_signal(int sig) {
  Line l;
  l.add("\n");
  l.add(g_program);
  l.add(": fatal: ");
  if (g_context[0]) {
    l.add(g_context);
    l.add(": ");
  } else {
    l.add("pid ");
    l.add(static_cast<long>(::getpid()));
    l.add(": ");
  }
  // A rank whose peer died usually fails inside the MPI library (UCX aborts): say that first.
  // The library can notice the death before the kernel has finished it, so look again for a
  // moment before blaming this rank.
  const size_t before = l.n;
  add_dead_peers(l, "");
  for (int tries = 0; l.n == before && g_peer_count > 0 && tries < 10; ++tries) {
    struct timespec ts{0, 50 * 1000 * 1000};
    ::nanosleep(&ts, nullptr);
    add_dead_peers(l, "");
  }
  if (l.n > before) {
    l.add(" (killed or crashed), so this rank stops (");
    l.add(describe_signal(sig));
    l.add(" in the MPI library)");
  } else {
    l.add("crashed with ");
    l.add(describe_signal(sig));
  }
  l.add("\n");
  ssize_t ignored = ::write(2, l.buf, l.n);
  (void)ignored;
  tell_watcher('c');  // reported here: the watcher stays quiet
  // SA_RESETHAND restored the default action: die of the same signal now.
  ::signal(sig, SIG_DFL);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  ::sigprocmask(SIG_UNBLOCK, &s, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);
}

enum class WatchResult { kQuiet, kClaimedQuietly, kFirstToDie };
bool g_holds_claim_file = false;  // in the watcher

// Reads what the rank told the watcher: 'x', 'c', or nothing (-1) when it died without a word.
int read_rank_word(int fd) {
  char what = 0;
  ssize_t r;
  do {
    r = ::read(fd, &what, 1);
  } while (r < 0 && errno == EINTR);
  return r == 1 ? what : -1;
}

// The job's claim file on this host; false if another watcher holds it.
bool take_claim_file(const char* claim) {
  const int cfd = ::open(claim, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (cfd < 0) return false;
  ::close(cfd);
  g_holds_claim_file = true;
  return true;
}

// First come, first served among the watchers woken: right unless the scheduler runs a watcher
// of a rank the launcher killed before the watcher of the rank that died first.
WatchResult watch_with_claim_file(const char* claim, int fd) {
  const int what = read_rank_word(fd);
  if (what == 'x') return WatchResult::kQuiet;
  if (!take_claim_file(claim)) return WatchResult::kQuiet;  // another rank ended first
  return what == -1 ? WatchResult::kFirstToDie : WatchResult::kClaimedQuietly;
}

// Keeps the arbiter's claim pending (the kernel completes it in the first dying rank's exit
// path) until a signal wakes the watcher: the rank's word ('x' or 'c', then kWakeSignal) or its
// death (PR_SET_PDEATHSIG, sent after the kernel has decided the claim). The timeout is only a
// safety net: the claim is not pending between two waits, so they must be rare.
// The winner takes the claim file too, so a watcher that fell back to it cannot print as well.
WatchResult watch_with_arbiter(FirstDeathArbiter& arbiter, const char* claim, int fd) {
  arbiter.join();
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) {
      if (read_rank_word(fd) != -1) return WatchResult::kQuiet;  // 'x', or 'c' (the rank took T)
      // The rank is gone. If no claim was pending when it died (before the first wait, or
      // between two), its exit path raised D_r but completed nothing: claim now.
      if (arbiter.claim_now() != FirstDeathArbiter::Claim::kWon) return WatchResult::kQuiet;
      return take_claim_file(claim) ? WatchResult::kFirstToDie : WatchResult::kQuiet;
    }
    const FirstDeathArbiter::Claim c = arbiter.wait_for_first_death(10000);
    if (c == FirstDeathArbiter::Claim::kWon) return take_claim_file(claim) ? WatchResult::kFirstToDie : WatchResult::kQuiet;
    if (c == FirstDeathArbiter::Claim::kFailed) return watch_with_claim_file(claim, fd);
  }
}

void on_wake_signal(int) {}  // only to interrupt the watcher's wait

}  // namespace

void install_crash_handlers(const char* program) {
  if (program) {
    std::strncpy(g_program, program, sizeof g_program - 1);
    g_program[sizeof g_program - 1] = 0;
  }
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  ss.ss_flags = 0;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

void note_failure_reported() { tell_watcher('c'); }

void start_death_watcher(int rank, int world_size) {
  if (g_watcher_started) return;  // one per process (a suite runs several experiments)
  int fds[2];
  if (::pipe(fds) != 0) return;
  g_watcher_started = true;
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls
  // (the process may already have BLAS threads).
  const long launcher = static_cast<long>(::getppid());  // one per job on this host
  FirstDeathArbiter arbiter;
  arbiter.open_for(launcher, rank, world_size);
  arbiter.arm();
  Line claim;  // the fallback where System V semaphores are unavailable
  claim.add("/tmp/sl-first-death-");
  claim.add(launcher);
  claim.buf[claim.n] = 0;
  char host[64] = {0};
  ::gethostname(host, sizeof host - 1);
  Line msg;
  msg.add("\n");
  msg.add(g_program);
  msg.add(": rank ");
  msg.add(static_cast<long>(rank));
  msg.add(" of ");
  msg.add(static_cast<long>(world_size));
  msg.add(" (pid ");
  msg.add(static_cast<long>(::getpid()));
  msg.add(" on ");
  msg.add(host);
  msg.add(") was the first rank here to end without a clean exit (killed by a signal, crashed or "
          "aborted); the launcher then stops the others\n");
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    arbiter.disarm();
    return;
  }
  if (child == 0) {
    // Hold nothing of the rank's but stderr: the launcher waits for its sockets and pipes.
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != fds[0]) ::close(fd);
    ::close(0);
    ::prctl(PR_SET_NAME, "sl-watcher", 0, 0, 0);
    ::setpgid(0, 0);  // out of the rank's process group, which the launcher kills
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGPIPE}) ::signal(sig, SIG_IGN);
    struct sigaction wake {};
    wake.sa_handler = on_wake_signal;  // no SA_RESTART: the wait returns EINTR
    sigemptyset(&wake.sa_mask);
    ::sigaction(kWakeSignal, &wake, nullptr);
    ::prctl(PR_SET_PDEATHSIG, kWakeSignal, 0, 0, 0);  // (if the rank died before this, the pipe says so)
    const WatchResult seen =
        arbiter.usable() ? watch_with_arbiter(arbiter, claim.buf, fds[0]) : watch_with_claim_file(claim.buf, fds[0]);
    if (seen == WatchResult::kFirstToDie) {
      ssize_t ignored = ::write(2, msg.buf, msg.n);
      (void)ignored;
    }
    ::close(1);  // the launcher waits for our copy of its output pipes
    ::close(2);
    if (g_holds_claim_file) {
      // Keep the claim file while the others are being stopped, then clean up.
      struct timespec ts{2, 0};
      ::nanosleep(&ts, nullptr);
      ::unlink(claim.buf);
    }
    arbiter.leave();
    ::_exit(0);
  }
  ::close(fds[0]);
  ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  g_arbiter = arbiter;  // before the fd: tell_watcher() may run in a signal handler from here on
  g_watcher_pid = child;
  g_watcher_fd = fds[1];
  std::atexit(tell_watcher_clean_exit);
}

void set_crash_context(const std::string& context) {
  const size_t n = std::min(context.size(), sizeof g_context - 1);
  std::memcpy(g_context, context.data(), n);
  g_context[n] = 0;
}

void set_peer_processes(const std::vector<PeerProcess>& peers) {
  g_peer_count = 0;
  int n = 0;
  for (const PeerProcess& p : peers)
    if (n < kMaxPeers) g_peers[n++] = p;
  g_peer_count = n;
}

std::string describe_dead_peers() {
  Line l;
  add_dead_peers(l, "");
  return std::string(l.buf, l.n);
}

}  // namespace sl
