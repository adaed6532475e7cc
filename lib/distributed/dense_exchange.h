#pragma once
#include <cstddef>

#include "distributed/comm_accounting.h"
#include "distributed/gradient_exchange.h"

namespace sl {

// dense: G = allreduce_sum(g_n), in place in the gradient buffer.
class DenseAllReduceExchange : public GradientExchange {
 public:
  DenseAllReduceExchange(CommAccounting& acct, size_t P) : acct_(acct), P_(P) {}
  ExchangeResult exchange(float* grad, int64_t step, StepStats& stats) override;

 private:
  CommAccounting& acct_;
  size_t P_;
};

// fedavg: no gradient exchange; each node steps on its own g_n (U_n = g_n) and the
// Averager brings the copies back together every K steps.
class LocalOnlyExchange : public GradientExchange {
 public:
  ExchangeResult exchange(float* grad, int64_t, StepStats&) override { return {grad}; }
};

}  // namespace sl
