#include "distributed/averager.h"

#include <cmath>
#include <cstring>

#include "distributed/wire_bytes.h"

namespace sl {

namespace {
// x := allreduce_sum(x) / N, bookkept as one dense all-reduce.
void average_in_place(CommAccounting& acct, float* x, size_t P, StepStats& stats) {
  acct.measure(stats, [&] { acct.comm().allreduce_sum(x, P); });
  const float N = static_cast<float>(acct.comm().size());
  for (size_t i = 0; i < P; ++i) x[i] = x[i] / N;
  stats.analytic_bytes_sent += analytic_allreduce_bytes(P, acct.comm().size());
  acct.model_allreduce(stats, 4.0 * static_cast<double>(P));
}
}  // namespace

void Averager::average(CommAccounting& acct, float* params, size_t P,
                       const std::vector<float*>& moments, StepStats& stats) {
  mean_.assign(params, params + P);
  average_in_place(acct, mean_.data(), P, stats);
  double d2 = 0;
  for (size_t i = 0; i < P; ++i) {
    const double d = static_cast<double>(params[i]) - mean_[i];
    d2 += d * d;
  }
  double total = 0;
  acct.measure(stats, [&] { total = acct.comm().allreduce_sum(std::sqrt(d2)); });
  acct.model_allreduce(stats, sizeof(double));
  if (P) std::memcpy(params, mean_.data(), P * sizeof(float));
  if (moments_)
    for (float* m : moments) average_in_place(acct, m, P, stats);
  stats.averaged = true;
  stats.divergence = total / acct.comm().size();
  stats.divergence_after = 0.0;  // every node now holds the same bit pattern
}

}  // namespace sl
