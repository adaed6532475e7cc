#pragma once
#include <time.h>

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

}  // namespace sl
