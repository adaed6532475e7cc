#include "distributed/dense_exchange.h"

#include "distributed/wire_bytes.h"

namespace sl {

ExchangeResult DenseAllReduceExchange::exchange(float* grad, int64_t, StepStats& stats) {
  acct_.measure(stats, [&] { acct_.comm().allreduce_sum(grad, P_); });
  stats.analytic_bytes_sent += analytic_allreduce_bytes(P_, acct_.comm().size());
  acct_.model_allreduce(stats, 4.0 * static_cast<double>(P_));
  return {grad};
}

}  // namespace sl
