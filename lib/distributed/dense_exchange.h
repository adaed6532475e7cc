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

// Bytes (analytic) and modeled time of dense's all-reduce of P floats, whatever carries it.
void book_dense_allreduce(CommAccounting& acct, StepStats& stats, size_t P);

// dense for a gradient that MPI cannot read where it is (a GPU: MPI here is not CUDA-aware):
// to_host(staging) copies the n floats into host memory, the all-reduce sums them there, and
// from_host(staging) copies the sum back. The copies exist only because of that transport, so
// they are booked as communication (comm_seconds) with the all-reduce, not as compute. With
// one node the sum is the buffer itself: no copies and no collective (the one-node all-reduce
// moves 0 bytes, so the booked bytes are the same).
template <class ToHost, class FromHost>
void host_staged_allreduce(CommAccounting& acct, StepStats& stats, float* staging, size_t n,
                           ToHost&& to_host, FromHost&& from_host) {
  if (acct.comm().size() > 1)
    acct.measure(stats, [&] {
      to_host(staging);
      acct.comm().allreduce_sum(staging, n);
      from_host(staging);
    });
  book_dense_allreduce(acct, stats, n);
}

// fedavg: no gradient exchange; each node steps on its own g_n (U_n = g_n) and the
// Averager brings the copies back together every K steps.
class LocalOnlyExchange : public GradientExchange {
 public:
  ExchangeResult exchange(float* grad, int64_t, StepStats&) override { return {grad}; }
};

}  // namespace sl
