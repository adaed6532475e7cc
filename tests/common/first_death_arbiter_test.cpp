// FirstDeathArbiter: the first rank to die takes the token in its own exit path, before
// anyone can wait for it, however the watchers are scheduled.
#include "common/first_death_arbiter.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using sl::FirstDeathArbiter;
constexpr int kWorld = 2;
constexpr int kToken = 0;

// A pretend rank: a child that opens the job's set as `rank`, arms, then either waits to be
// killed, exits cleanly (disarmed) or reports its own failure (takes the token) and exits.
enum class RankEnd { kKilled, kCleanExit, kReportsFailure };
pid_t start_rank(long launcher, int rank, RankEnd end) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);  // never outlive a failed test
    FirstDeathArbiter a;
    a.open_for(launcher, rank, kWorld);
    a.arm();
    char ok = a.usable() ? 'y' : 'n';
    if (::write(ready[1], &ok, 1) != 1) ::_exit(3);
    if (end == RankEnd::kCleanExit) {
      a.disarm();
      ::_exit(0);
    }
    if (end == RankEnd::kReportsFailure) {
      a.take_token();
      ::_exit(1);
    }
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char ok = 0;
  const bool armed = ::read(ready[0], &ok, 1) == 1 && ok == 'y';
  ::close(ready[0]);
  return armed ? pid : -1;
}

void end_rank(pid_t pid, bool kill_it) {
  if (kill_it) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// The number of claims waiting on D_rank (GETNCNT: waiters for an increase).
int waiting_claims(int set, int rank) { return ::semctl(set, 5 + rank, GETNCNT); }

TEST(FirstDeathArbiter, TheFirstRankToDieTakesTheTokenInItsExitPath) {
  const long launcher = ::getpid();  // every process below derives the same key from it
  const pid_t r0 = start_rank(launcher, 0, RankEnd::kKilled);
  const pid_t r1 = start_rank(launcher, 1, RankEnd::kKilled);
  ASSERT_GT(r0, 0) << "System V semaphores unavailable here";
  ASSERT_GT(r1, 0);
  FirstDeathArbiter w0, w1;
  w0.open_for(launcher, 0, kWorld);
  w1.open_for(launcher, 1, kWorld);
  ASSERT_TRUE(w0.usable());
  ASSERT_EQ(w0.set_id(), w1.set_id()) << "the watchers and the ranks must find one set";
  w0.join();
  w1.join();
  auto watch = [](FirstDeathArbiter* w) {  // long waits: the claim must stay pending
    for (int i = 0; i < 3; ++i)
      if (w->wait_for_first_death(10000) == FirstDeathArbiter::Claim::kWon) return true;
    return false;
  };
  // Rank 1's claim is pending; rank 0's watcher only looks later (as if not yet scheduled).
  auto won1 = std::async(std::launch::async, watch, &w1);
  const int set = w1.set_id();
  for (int i = 0; i < 500 && waiting_claims(set, 1) < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(waiting_claims(set, 1), 1);
  end_rank(r1, true);
  // Reaped, so its exit path is over: the token is already taken, whether or not the watching
  // thread has run since.
  EXPECT_EQ(::semctl(set, kToken, GETVAL), 1);
  end_rank(r0, true);
  EXPECT_EQ(w0.claim_now(), FirstDeathArbiter::Claim::kNotYet) << "rank 0 died second";
  EXPECT_TRUE(won1.get());
  w0.leave();
  w1.leave();
  EXPECT_EQ(::semctl(set, 0, GETVAL), -1) << "the last watcher out removes the set";
}

TEST(FirstDeathArbiter, ADeathWithNoClaimPendingIsClaimedAfterwards) {
  const long launcher = ::getpid();  // a live launcher: another test's start removes sets of dead ones
  const pid_t r0 = start_rank(launcher, 0, RankEnd::kKilled);
  ASSERT_GT(r0, 0);
  FirstDeathArbiter w0;
  w0.open_for(launcher, 0, kWorld);
  w0.join();
  EXPECT_EQ(w0.claim_now(), FirstDeathArbiter::Claim::kNotYet) << "rank 0 is alive";
  end_rank(r0, true);
  EXPECT_EQ(w0.claim_now(), FirstDeathArbiter::Claim::kWon);
  w0.leave();
}

TEST(FirstDeathArbiter, ACleanExitOrAReportedFailureLeavesNothingToClaim) {
  const long launcher = ::getpid();
  const pid_t clean = start_rank(launcher, 0, RankEnd::kCleanExit);
  ASSERT_GT(clean, 0);
  end_rank(clean, false);
  FirstDeathArbiter w0, w1;
  w0.open_for(launcher, 0, kWorld);
  w1.open_for(launcher, 1, kWorld);
  w0.join();
  w1.join();
  EXPECT_EQ(w0.claim_now(), FirstDeathArbiter::Claim::kNotYet) << "a clean exit is no death";
  // Rank 1 prints its own failure line and takes the token: no watcher may add one.
  const pid_t failing = start_rank(launcher, 1, RankEnd::kReportsFailure);
  ASSERT_GT(failing, 0);
  end_rank(failing, false);
  EXPECT_EQ(::semctl(w1.set_id(), kToken, GETVAL), 1);
  EXPECT_EQ(w1.claim_now(), FirstDeathArbiter::Claim::kNotYet);
  w0.leave();
  w1.leave();
}

TEST(FirstDeathArbiter, ASetWhoseLauncherIsGoneIsRemovedByTheNextJob) {
  // A job whose every process was SIGKILLed (its watchers too) leaves its set behind.
  const long gone = 0x3fffffffL;  // above any pid_max (2^22), so no process has it
  FirstDeathArbiter left_behind;
  left_behind.open_for(gone, 0, kWorld);
  ASSERT_TRUE(left_behind.usable());
  const int stale = left_behind.set_id();  // no watcher attached: its last one was killed
  FirstDeathArbiter next;
  next.open_for(::getpid(), 0, kWorld);
  ASSERT_TRUE(next.usable());
  EXPECT_NE(next.set_id(), stale);
  errno = 0;
  EXPECT_EQ(::semctl(stale, 0, GETVAL), -1) << "the set of a launcher that is gone is still there";
  EXPECT_TRUE(errno == EINVAL || errno == EIDRM) << std::strerror(errno);
  // A live launcher's set is kept, and so is any set a watcher is still attached to.
  FirstDeathArbiter watched;
  watched.open_for(gone - 1, 0, kWorld);
  watched.join();
  FirstDeathArbiter again;
  again.open_for(::getpid(), 1, kWorld);
  EXPECT_EQ(again.set_id(), next.set_id());
  EXPECT_EQ(::semctl(next.set_id(), 0, GETVAL), 0);
  EXPECT_EQ(::semctl(watched.set_id(), 0, GETVAL), 0) << "a set with a watcher attached was removed";
  watched.leave();
  next.join();
  next.leave();
}

// Read independently: the 20th field after the ")" closing the command name.
unsigned long long start_ticks_from_proc(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i) rest >> field;
  return std::stoull(field);
}

TEST(FirstDeathArbiter, TheKeyUsesTheLaunchersStartTimeNotAFieldThatChanges) {
  const unsigned long long before = sl::process_start_ticks(::getpid());
  EXPECT_EQ(before, start_ticks_from_proc(::getpid()));
  std::vector<char> grown(64 << 20, 1);  // the neighbouring fields (memory sizes) change
  EXPECT_EQ(sl::process_start_ticks(::getpid()), before) << grown[12345];
  EXPECT_EQ(sl::process_start_ticks(-1), 0u);
}

TEST(FirstDeathArbiter, OutOfRangeRanksAreNotUsable) {
  FirstDeathArbiter a;
  a.open_for(::getpid(), 2, 2);
  EXPECT_FALSE(a.usable());
  EXPECT_EQ(a.claim_now(), FirstDeathArbiter::Claim::kFailed);
  a.arm();  // harmless
  a.leave();
}

}  // namespace
