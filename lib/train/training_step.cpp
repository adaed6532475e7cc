#include "train/training_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/graph.h"
#include "common/counter_rng.h"
#include "common/timer.h"
#include "train/cluster_gather.h"
#include "train/gradient_clipping.h"
#ifdef SL_HAVE_CUDA
#include "distributed/device_exchange.h"
#endif

namespace sl {

namespace {

// Index of the first non-finite value of a host or device buffer, or -1.
int64_t first_nonfinite(const Tensor& t) {
  std::vector<float> v = t.to_host();
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return static_cast<int64_t>(i);
  return -1;
}

}  // namespace

TrainingStep::TrainingStep(const TrainingJob& job, Communicator& comm, Seq2SeqModel& model,
                           ParameterArena& arena, Optimizer& optimizer,
                           DistributedStrategy& strategy,
                           DeviceDistributedStrategy* device_strategy)
    : job_(job),
      comm_(comm),
      model_(model),
      arena_(arena),
      optimizer_(optimizer),
      strategy_(strategy),
      device_strategy_(device_strategy),
      clock_(arena.values().device().is_cuda()
                 ? ComputeClock([&dev = arena.values().device()] { dev.synchronize(); })
                 : ComputeClock()),
      grad_h_(arena.grads()),
      param_h_(arena.values()) {
  for (const Tensor& m : optimizer.moments()) moments_h_.emplace_back(m);
}

StepReport TrainingStep::run(const Batch& b, int64_t t,
                             const std::function<LocalSignals()>& signals) {
  StepReport r;
  r.t = t;
  // 1. g_n: the gradient of the node's summed token losses
  const double c0 = clock_.now();
  const double loss_sum = forward_backward(b, t);
  faults_.after_backward(comm_.rank(), t, arena_.grads());
  const bool finite_here = gradient_finite(loss_sum);
  double compute_s = clock_.now() - c0;
  // 2. the nodes agree on the loss, non-finite values and stop requests
  agree(r, loss_sum, finite_here, signals());
  if (r.nonfinite) {
    if (!finite_here) report_nonfinite(t, loss_sum);
    return r;  // no update anywhere; the lifecycle decides between skipping and stopping
  }
  // 3. g_n -> U_n (normalise by the global token count, exchange, combine)
  const double c1 = clock_.now();
  exchange(b, t, r.stats);
  // 4. clip U_n, the optimizer on theta_n; 5. average theta every K steps
  const double c2 = clock_.now();
  const double exchange_comm_s = r.stats.comm_seconds;
  update(r);
  const double c3 = clock_.now();
  average(t, r.stats);
  const double averaging_comm_s = r.stats.comm_seconds - exchange_comm_s;
  // Local work: forward/backward, the exchange's and the averaging's bookkeeping outside their
  // collectives, the optimizer. Each collective's wait is taken out of its own span: a rank that
  // waits by polling (MPI) spends CPU time there, which is communication, not compute.
  compute_s += (c3 - c2) + std::max(0.0, (c2 - c1) - exchange_comm_s) +
               std::max(0.0, (clock_.now() - c3) - averaging_comm_s);
  gather_measurements(r, compute_s);
  return r;
}

double TrainingStep::forward_backward(const Batch& b, int64_t t) {
  Device& dev = arena_.values().device();
  ModelBatch mb = make_model_batch(dev, b.B, b.S, b.T, b.src, b.src_lengths, b.tgt_in, b.tgt_out);
  arena_.zero_grads();
  // Dropout masks from (seed, node, step): a resumed run draws the same ones.
  Graph g(dev, /*dropout_enabled=*/true,
          counter_hash(job_.seed, static_cast<uint64_t>(comm_.rank()), static_cast<uint64_t>(t)));
  Var loss = model_.loss(g, arena_, mb);
  g.backward(loss);
  return loss.value().to_host()[0];
}

bool TrainingStep::gradient_finite(double loss_sum) const {
  return std::isfinite(loss_sum) &&
         std::isfinite(arena_.values().device().sum_squares(arena_.size(), arena_.grads().f32()));
}

void TrainingStep::agree(StepReport& r, double loss_sum, bool finite_here, LocalSignals here) {
  auto flags = allgather_doubles(comm_, {loss_sum, finite_here ? 0.0 : 1.0, here.stop ? 1.0 : 0.0,
                                         here.budget_spent ? 1.0 : 0.0});
  for (auto& f : flags) {
    r.loss_sum += f[0];
    r.nonfinite = r.nonfinite || f[1] > 0;
    r.stop = r.stop || f[2] > 0;
    r.budget_spent = r.budget_spent || f[3] > 0;
  }
}

void TrainingStep::report_nonfinite(int64_t t, double loss_sum) const {
  const int64_t at = first_nonfinite(arena_.grads());
  std::fprintf(stderr, "[%s] node %d step %lld: non-finite %s (loss %g%s%s)\n", job_.name.c_str(),
               comm_.rank(), static_cast<long long>(t + 1), at >= 0 ? "gradient" : "loss", loss_sum,
               at >= 0 ? ", first in parameter " : "", at >= 0 ? arena_.name_at(at).c_str() : "");
}

void TrainingStep::exchange(const Batch& b, int64_t t, StepStats& stats) {
#ifdef SL_HAVE_CUDA
  if (device_strategy_) {  // g_n -> U_n on the device; only pairs (or the dense buffer) cross
    float* grad = arena_.grads().f32();
    device_strategy_->normalize_gradient(grad, b.tgt_tokens);
    device_strategy_->exchange(grad, t, stats);
    return;
  }
#endif
  float* grad = grad_h_.pull();
  strategy_.normalize_gradient(grad, b.tgt_tokens);
  strategy_.exchange(grad, t, stats);
  grad_h_.push();
}

void TrainingStep::update(StepReport& r) {
  Device& dev = arena_.values().device();
  r.grad_norm = clip_global_norm(dev, arena_.grads().f32(), arena_.size(), job_.train.clip_norm);
  r.lr = job_.train.schedule.at(r.t + 1);
  optimizer_.step(arena_.values(), arena_.grads(), static_cast<float>(r.lr));
}

void TrainingStep::average(int64_t t, StepStats& stats) {
#ifdef SL_HAVE_CUDA
  if (device_strategy_) {  // through the host on averaging steps only
    std::vector<float*> moments;
    for (const Tensor& m : optimizer_.moments()) moments.push_back(m.f32());
    device_strategy_->after_update(arena_.values().f32(), arena_.size(), moments, t, stats);
    return;
  }
#endif
  if (!strategy_.needs_host_parameters(t)) {
    strategy_.after_update(arena_.values().f32(), arena_.size(), {}, t, stats);
    return;
  }
  std::vector<float*> moments;
  for (HostMirror& m : moments_h_) moments.push_back(m.pull());
  strategy_.after_update(param_h_.pull(), arena_.size(), moments, t, stats);
  param_h_.push();
  for (HostMirror& m : moments_h_) m.push();
}

void TrainingStep::gather_measurements(StepReport& r, double compute_s) {
  const int N = comm_.size();
  auto meas = allgather_doubles(
      comm_, {compute_s, r.stats.comm_seconds, static_cast<double>(r.stats.bytes_sent),
              static_cast<double>(r.stats.bytes_received)});
  r.min_comm_s = meas.empty() ? 0.0 : meas[0][1];
  for (auto& m : meas) {
    r.max_compute_s = std::max(r.max_compute_s, m[0]);
    r.max_comm_s = std::max(r.max_comm_s, m[1]);
    r.min_comm_s = std::min(r.min_comm_s, m[1]);
    r.bytes_sent += m[2] / N;
    r.bytes_received += m[3] / N;
  }
}

}  // namespace sl
