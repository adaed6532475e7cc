#pragma once
#include <cstddef>
#include <vector>

#include "distributed/distributed_config.h"
#include "distributed/state_buffer.h"
#include "distributed/step_stats.h"

namespace sl {

// DiLoCo's outer step (Douillard et al. 2023; BEYOND.md). It runs right after the
// Averager has made every theta_n the mean theta-bar = allreduce_sum(theta_n) / N, and keeps
// theta_anchor, the parameters of the last outer step (theta_0 at first):
//   Delta = theta_anchor - theta-bar             = mean_n Delta_n, Delta_n = anchor - theta_n
//   b     = mu b + Delta                         PyTorch SGD's buffer (dampening 0), b_0 = 0
//   theta = theta_anchor - lr (Delta + mu b)     Nesterov (DiLoCo's), or
//   theta = theta_anchor - lr b                  heavy ball (nesterov false)
//   theta_anchor = theta                         on every node (all hold the same bits)
// Delta_n is never formed: all-reducing theta_n instead of Delta_n sends the same 4P bytes,
// and keeps the averaging arithmetic of fedavg. With lr = 1 and mu = 0 the step is
// theta = anchor - (anchor - theta-bar) = theta-bar: theta is then left as the Averager made
// it instead of being recomputed (in floats anchor - (anchor - x) need not round back to x),
// so DiLoCo at lr 1 without momentum IS fedavg, bit for bit (tested).
class OuterOptimizer {
 public:
  OuterOptimizer(size_t P, const DiLoCoConfig& c);
  // theta_0, the same on every node: the anchor of the first outer step.
  void start(const float* theta0);
  // params holds theta-bar on entry and the new theta on return.
  void step(float* params, StepStats& stats);
  // "diloco_anchor", "diloco_momentum" (P floats each).
  void state(std::vector<StateBuffer>& out);
  bool is_identity() const { return lr_ == 1.0f && mu_ == 0.0f; }

 private:
  size_t P_;
  float lr_, mu_;
  bool nesterov_;
  std::vector<float> anchor_, b_;
};

}  // namespace sl
