#include <gtest/gtest.h>

#include <thread>

#include "common/timer.h"

namespace sl {
namespace {

// The CPU path's clock is thread CPU time, exactly as before: sleeping costs nothing.
TEST(ComputeClock, DefaultIsThreadCpuTime) {
  ComputeClock c;
  EXPECT_FALSE(c.synchronised());
  const double t0 = c.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double t1 = c.now();
  EXPECT_LT(t1 - t0, 0.02);
  EXPECT_GE(t1, t0);
}

// With a device, every reading waits for the device first, then reads the wall clock:
// time the host spends waiting (here: sleeping in sync) is counted.
TEST(ComputeClock, DeviceClockSynchronisesThenReadsTheWallClock) {
  int syncs = 0;
  ComputeClock c([&] {
    ++syncs;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  });
  EXPECT_TRUE(c.synchronised());
  const double t0 = c.now();
  const double t1 = c.now();
  EXPECT_EQ(syncs, 2);
  EXPECT_GE(t1 - t0, 0.025);
}

}  // namespace
}  // namespace sl
