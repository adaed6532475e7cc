#include "distributed/dense_exchange.h"

#include "distributed/wire_bytes.h"

namespace sl {

void book_dense_allreduce(CommAccounting& acct, StepStats& stats, size_t P) {
  stats.analytic_bytes_sent += analytic_allreduce_bytes(P, acct.comm().size());
  acct.model_allreduce(stats, 4.0 * static_cast<double>(P));
}

ExchangeResult DenseAllReduceExchange::exchange(float* grad, int64_t, StepStats& stats) {
  acct_.measure(stats, [&] { acct_.comm().allreduce_sum(grad, P_); });
  book_dense_allreduce(acct_, stats, P_);
  return {grad};
}

}  // namespace sl
