#pragma once
#include <string>

#include "tensor/profiling_device.h"

namespace sl {

// The table bench_train_step --profile and run-experiment --profile print: kernel time per
// category and per kernel (slowest first; GEMMs by shape when the device booked shapes), per
// step, as a share of the mean step `step_s`, and the GEMM-only floor (the step's GEMM flops at
// `ceiling_gflops`; 0 leaves the floor out). What the kernels do not cover is autograd, graph
// building and host work.
std::string profile_table(const ProfilingDevice& prof, int steps, double step_s,
                          double ceiling_gflops);

}  // namespace sl
