#include "distributed/distributed_strategy.h"

#include <stdexcept>
#include <string>

#include "distributed/dense_exchange.h"
#include "distributed/sparse_exchange.h"

namespace sl {

namespace {

std::unique_ptr<GradientExchange> make_exchange(const DistributedConfig& c, CommAccounting& acct,
                                                size_t P) {
  switch (c.method) {
    case Method::Sparse: {
      SparseAllGatherExchange::Options o;
      o.drop_ratio = c.drop_ratio;
      o.warmup_steps = c.drop_warmup_steps;
      o.threshold = c.threshold;
      o.sample_size = static_cast<size_t>(c.sample_size);
      o.encoding = c.encoding;
      return std::make_unique<SparseAllGatherExchange>(acct, P, o);
    }
    case Method::FedAvg:
      return std::make_unique<LocalOnlyExchange>();
    case Method::Dense:
      break;
  }
  return std::make_unique<DenseAllReduceExchange>(acct, P);
}

}  // namespace

DistributedStrategy::DistributedStrategy(const DistributedConfig& config, Communicator& comm,
                                         size_t P)
    : config_(config),
      P_(P),
      acct_(comm, config.network),
      exchange_(make_exchange(config, acct_, P)),
      combiner_(make_combiner(config.combiner)),
      averager_(config.average_every, config.average_moments) {
  const std::string problem = config.inconsistency(nullptr);
  if (!problem.empty()) throw std::invalid_argument("DistributedStrategy: " + problem);
}

int64_t DistributedStrategy::normalize_gradient(float* grad, int64_t local_tokens) {
  const int64_t total = acct_.allreduce_token_count(pending_, local_tokens);
  const float scale = static_cast<float>(1.0 / static_cast<double>(total));
  for (size_t i = 0; i < P_; ++i) grad[i] *= scale;
  return total;
}

void DistributedStrategy::exchange(float* grad, int64_t step, StepStats& stats) {
  stats = pending_;
  pending_ = StepStats{};
  stats.step = step;
  stats.node = acct_.comm().rank();
  stats.nodes = acct_.comm().size();
  stats.network = acct_.network().name;
  const ExchangeResult r = exchange_->exchange(grad, step, stats);
  combiner_->combine(grad, r, P_);
}

void DistributedStrategy::after_update(float* params, size_t P, const std::vector<float*>& moments,
                                       int64_t step, StepStats& stats) {
  if (P != P_)
    throw std::invalid_argument("after_update: P = " + std::to_string(P) +
                                " but the strategy was built for " + std::to_string(P_));
  if (averager_.due(step)) averager_.average(acct_, params, P, moments, stats);
}

std::unique_ptr<DistributedStrategy> make_strategy(const DistributedConfig& config,
                                                   Communicator& comm, size_t P) {
  return std::make_unique<DistributedStrategy>(config, comm, P);
}

}  // namespace sl
