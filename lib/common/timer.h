#pragma once
#include <time.h>

#include <functional>
#include <utility>

namespace sl {

// Wall-clock seconds (monotonic).
inline double wall_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// CPU seconds of the calling thread: the compute time of one simulated node even when
// several nodes share two cores.
inline double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The clock a node's compute time is read from (PAPER.md: modeled step time = the slowest
// node's measured compute + modeled communication).
//  - CPU backend (default): thread CPU time, as before -- unchanged numbers, and correct when
//    simulated nodes share cores.
//  - An asynchronous device (CUDA): the host thread's CPU time is wrong both ways -- it
//    misses the time kernels run after the launch returns, and it counts spinning in a
//    blocking call -- so now() first waits for the device (`sync`, e.g.
//    Device::synchronize) and then reads the wall clock. Differences of now() are the wall
//    time of the device work in between; ranks sharing one GPU then see each other's
//    kernels too (say so when reporting such runs). CUDA events time a span on the device
//    itself (lib/tensor/cuda/cuda_timer.h, used by bench/gpu); for whole steps this
//    synchronised clock is what the trainer needs, and the host syncs every step anyway.
class ComputeClock {
 public:
  ComputeClock() = default;
  explicit ComputeClock(std::function<void()> sync) : sync_(std::move(sync)) {}
  double now() const {
    if (!sync_) return thread_cpu_seconds();
    sync_();
    return wall_seconds();
  }
  bool synchronised() const { return static_cast<bool>(sync_); }
  const char* kind() const { return sync_ ? "device-synchronised wall clock" : "thread CPU time"; }

 private:
  std::function<void()> sync_;
};

}  // namespace sl
