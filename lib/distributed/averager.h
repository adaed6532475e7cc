#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distributed/comm_accounting.h"

namespace sl {

// Model averaging: every K steps (after the updates of steps K-1, 2K-1, ...; steps are
// 0-based) all nodes replace theta_n by mean_m theta_m = allreduce_sum(theta) / N, and,
// when configured, the optimizer moments the same way. Before replacing, it measures the
// divergence mean_n ||theta_n - mean||_2. One dense all-reduce of 4P bytes per buffer.
class Averager {
 public:
  Averager(int64_t every, bool average_moments) : every_(every), moments_(average_moments) {}
  bool due(int64_t step) const { return every_ > 0 && (step + 1) % every_ == 0; }
  void average(CommAccounting& acct, float* params, size_t P, const std::vector<float*>& moments,
               StepStats& stats);
  int64_t every() const { return every_; }
  bool averages_moments() const { return moments_; }

 private:
  int64_t every_;
  bool moments_;
  std::vector<float> mean_;
};

}  // namespace sl
