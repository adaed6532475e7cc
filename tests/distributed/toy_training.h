#pragma once
// A toy model trained through the real DistributedStrategy: softmax regression with plain
// loops, per-node deterministic data from CounterRng and Adam (or SGD). Shared by the
// in-process tests and the MPI executable, so both run exactly the same arithmetic.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/distributed_config.h"
#include "distributed/step_stats.h"
#include "distributed/tensor_view.h"

namespace sl::toy {

constexpr int kFeatures = 30, kClasses = 8;
constexpr size_t kParams = kFeatures * kClasses + kClasses;  // 248
// The two tensors, as a trainer passes them to the strategy: W (classes x features), b.
std::vector<TensorView> tensors();

struct Options {
  int steps = 25;
  bool adam = true;
  // > 0: a single node that trains on the union of the batches `union_of` nodes would see.
  int union_of = 0;
};

struct Run {
  std::vector<float> params;
  std::vector<double> losses;       // mean token loss of this node's batch, per step
  std::vector<float> first_update;  // U_n of step 0 (before clipping/Adam)
  std::vector<StepStats> stats;
  // The run as bytes (params, losses, and the deterministic stats fields; no timings), for
  // bit-for-bit comparison between MPI and the simulated cluster.
  std::vector<uint8_t> serialize() const;
};

Run train(Communicator& comm, const DistributedConfig& cfg, const Options& o = {});

// Every method of PAPER.md as the toy tests run it: averaging every 5 steps, warm-up W = 3;
// the variants also cover the sampled threshold, delta-varint and moment averaging. Then the
// methods of BEYOND.md: powersgd (rank 2, 3 dense steps), diloco (H = 5) and demo
// (chunks of 4, top 3), all with the toy's Adam.
std::vector<std::pair<std::string, DistributedConfig>> methods();

uint64_t fnv1a(const std::vector<uint8_t>& bytes);

}  // namespace sl::toy
