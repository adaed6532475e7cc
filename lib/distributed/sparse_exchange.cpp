#include "distributed/sparse_exchange.h"

#include <algorithm>

#include "common/timer.h"
#include "distributed/drop_ratio_schedule.h"
#include "distributed/wire_bytes.h"

namespace sl {

SparseAllGatherExchange::SparseAllGatherExchange(CommAccounting& acct, size_t P, const Options& o)
    : acct_(acct),
      P_(P),
      opt_(o),
      compressor_(o.threshold, o.sample_size),
      encoding_(make_pair_encoding(o.encoding)),
      E_(P),
      G_(P) {}

ExchangeResult SparseAllGatherExchange::exchange(float* grad, int64_t step, StepStats& stats) {
  const int N = acct_.comm().size();
  const double rho_t = drop_ratio_at(opt_.drop_ratio, opt_.warmup_steps, step);

  double t0 = thread_cpu_seconds();
  const CompressResult c = compressor_.compress(grad, E_, rho_t, S_);
  encoding_->encode(S_, wire_);
  stats.compress_seconds += thread_cpu_seconds() - t0;

  acct_.measure(stats, [&] { acct_.comm().allgather_bytes(wire_, received_); });

  t0 = thread_cpu_seconds();
  std::fill(G_.begin(), G_.end(), 0.0f);
  size_t max_block = 0;
  for (int m = 0; m < N; ++m) {
    encoding_->decode_add(received_[m], G_.data(), P_);
    max_block = std::max(max_block, received_[m].size());
  }
  stats.decompress_seconds += thread_cpu_seconds() - t0;
  stats.compress_clock = "thread_cpu";

  stats.drop_ratio = rho_t;
  stats.k_target = static_cast<int64_t>(c.k_target);
  stats.k_selected = static_cast<int64_t>(c.k_selected);
  stats.tau = c.tau;
  stats.encoded_bytes = static_cast<int64_t>(wire_.size());
  stats.bytes_per_pair = c.k_selected ? static_cast<double>(wire_.size()) / c.k_selected : 0.0;
  stats.analytic_bytes_sent += analytic_allgather_bytes(wire_.size(), N);
  acct_.model_variable_allgather(stats, static_cast<double>(max_block));
  return {G_.data(), &S_, &E_};
}

}  // namespace sl
