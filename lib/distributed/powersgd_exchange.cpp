#include "distributed/powersgd_exchange.h"

#include <cstring>

#include "common/counter_rng.h"
#include "common/timer.h"
#include "distributed/low_rank.h"
#include "distributed/wire_bytes.h"

namespace sl {

bool PowerSgdExchange::compresses(const TensorView& w, int64_t rank, double min_compression_rate) {
  const double n = static_cast<double>(w.rows), m = static_cast<double>(w.cols);
  return min_compression_rate * static_cast<double>(rank) * (n + m) < n * m;
}

PowerSgdExchange::PowerSgdExchange(CommAccounting& acct, size_t P,
                                   const std::vector<TensorView>& tensors, const PowerSgdConfig& o)
    : acct_(acct), opt_(o), P_(P), r_(static_cast<size_t>(o.rank)) {
  check_views(tensors, P);
  size_t p_at = 0, q_at = 0;
  for (const TensorView& w : tensors) {
    if (compresses(w, o.rank, o.min_compression_rate)) {
      factors_.push_back({w, p_at, q_at});
      p_at += w.rows * r_;
      q_at += w.cols * r_;
    } else {
      dense_.push_back(w);
      dense_floats_ += w.size();
    }
  }
  E_.assign(P_, 0.0f);
  Pf_.assign(p_at, 0.0f);
  Qf_.assign(q_at, 0.0f);
  dense_buf_.assign(dense_floats_, 0.0f);
  draw_q(0);
}

// Q of compressed tensor k from stream (stream_base + k): the same on every node.
void PowerSgdExchange::draw_q(uint64_t stream_base) {
  for (size_t k = 0; k < factors_.size(); ++k) {
    CounterRng rng(static_cast<uint64_t>(opt_.random_seed), stream_base + k);
    float* q = Qf_.data() + factors_[k].q_at;
    for (size_t i = 0; i < factors_[k].w.cols * r_; ++i) q[i] = rng.normal();
  }
}

ExchangeResult PowerSgdExchange::exchange(float* grad, int64_t step, StepStats& stats) {
  const int N = acct_.comm().size();
  stats.lowrank_rank = opt_.rank;
  if (step < opt_.warmup_steps) {  // dense warm-up: what DenseAllReduceExchange does
    acct_.measure(stats, [&] { acct_.comm().allreduce_sum(grad, P_); });
    stats.analytic_bytes_sent += analytic_allreduce_bytes(P_, N);
    acct_.model_allreduce(stats, 4.0 * static_cast<double>(P_));
    stats.lowrank_compressed = false;
    stats.lowrank_floats = 0;
    stats.dense_floats = static_cast<int64_t>(P_);
    return {grad};
  }
  // Redrawn Q: one stream block per step, after the one the warm-started Q came from.
  if (!opt_.warm_start) draw_q((static_cast<uint64_t>(step) + 1) * factors_.size());

  double t0 = thread_cpu_seconds();
  size_t at = 0;  // the dense tensors, packed: the per-element rank-order sum is unchanged
  for (const TensorView& w : dense_) {
    std::memcpy(dense_buf_.data() + at, grad + w.offset, w.size() * sizeof(float));
    at += w.size();
  }
  for (const Factor& f : factors_) {  // M = g_n + E_n, in place; then P = M Q
    float* M = grad + f.w.offset;
    const float* E = E_.data() + f.w.offset;
    for (size_t i = 0; i < f.w.size(); ++i) M[i] = M[i] + E[i];
    lowrank_mq(M, f.w.rows, f.w.cols, Qf_.data() + f.q_at, r_, Pf_.data() + f.p_at);
  }
  stats.compress_seconds += thread_cpu_seconds() - t0;

  if (dense_floats_) {
    acct_.measure(stats, [&] { acct_.comm().allreduce_sum(dense_buf_.data(), dense_floats_); });
    acct_.model_allreduce(stats, 4.0 * static_cast<double>(dense_floats_));
  }
  if (!factors_.empty()) {
    acct_.measure(stats, [&] { acct_.comm().allreduce_sum(Pf_.data(), Pf_.size()); });
    acct_.model_allreduce(stats, 4.0 * static_cast<double>(Pf_.size()));
    t0 = thread_cpu_seconds();
    for (const Factor& f : factors_) {
      float* P = Pf_.data() + f.p_at;
      orthonormalise_columns(P, f.w.rows, r_);
      lowrank_mtp(grad + f.w.offset, f.w.rows, f.w.cols, P, r_, Qf_.data() + f.q_at);
    }
    stats.compress_seconds += thread_cpu_seconds() - t0;
    acct_.measure(stats, [&] { acct_.comm().allreduce_sum(Qf_.data(), Qf_.size()); });
    acct_.model_allreduce(stats, 4.0 * static_cast<double>(Qf_.size()));
  }

  t0 = thread_cpu_seconds();
  at = 0;
  for (const TensorView& w : dense_) {
    std::memcpy(grad + w.offset, dense_buf_.data() + at, w.size() * sizeof(float));
    at += w.size();
  }
  const float Nf = static_cast<float>(N);
  for (const Factor& f : factors_) {  // G = P^ Q^T; E_n = M - G / N; the update is G
    G_.resize(f.w.size());
    const float* G = G_.data();
    lowrank_pqt(Pf_.data() + f.p_at, f.w.rows, Qf_.data() + f.q_at, f.w.cols, r_, G_.data());
    float* M = grad + f.w.offset;
    float* E = E_.data() + f.w.offset;
    for (size_t i = 0; i < f.w.size(); ++i) {
      E[i] = M[i] - G[i] / Nf;
      M[i] = G[i];
    }
  }
  stats.decompress_seconds += thread_cpu_seconds() - t0;
  stats.compress_clock = "thread_cpu";

  stats.lowrank_compressed = true;
  stats.lowrank_floats = static_cast<int64_t>(Pf_.size() + Qf_.size());
  stats.dense_floats = static_cast<int64_t>(dense_floats_);
  stats.analytic_bytes_sent += analytic_powersgd_bytes(Pf_.size() + Qf_.size(), dense_floats_, N);
  return {grad};
}

void PowerSgdExchange::state(std::vector<StateBuffer>& out) {
  out.push_back({"powersgd_error", E_.data(), E_.size()});
  out.push_back({"powersgd_q", Qf_.data(), Qf_.size()});
}

}  // namespace sl
