#include "distributed/distributed_strategy.h"

#include <stdexcept>
#include <string>

#include "distributed/demo_exchange.h"
#include "distributed/dense_exchange.h"
#include "distributed/powersgd_exchange.h"
#include "distributed/sparse_exchange.h"

namespace sl {

namespace {

std::unique_ptr<GradientExchange> make_exchange(const DistributedConfig& c, CommAccounting& acct,
                                                size_t P, const std::vector<TensorView>& tensors) {
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
    case Method::DiLoCo:
      return std::make_unique<LocalOnlyExchange>();
    case Method::PowerSgd:
      return std::make_unique<PowerSgdExchange>(acct, P, tensors, c.powersgd);
    case Method::DeMo:
      return std::make_unique<DctTopKExchange>(acct, P, tensors, c.demo, c.encoding);
    case Method::Dense:
      break;
  }
  return std::make_unique<DenseAllReduceExchange>(acct, P);
}

}  // namespace

DistributedStrategy::DistributedStrategy(const DistributedConfig& config, Communicator& comm,
                                         size_t P, const std::vector<TensorView>& tensors)
    : config_(config),
      P_(P),
      acct_(comm, config.network),
      exchange_(make_exchange(config, acct_, P, tensors)),
      combiner_(make_combiner(config.combiner)),
      averager_(config.average_every, config.average_moments) {
  const std::string problem = config.inconsistency(nullptr);
  if (!problem.empty()) throw std::invalid_argument("DistributedStrategy: " + problem);
  check_views(tensors, P);
  if (config.method == Method::DiLoCo) outer_ = std::make_unique<OuterOptimizer>(P_, config.diloco);
}

void DistributedStrategy::start(const float* params) {
  if (outer_) outer_->start(params);
}

std::vector<StateBuffer> DistributedStrategy::state() {
  std::vector<StateBuffer> out;
  exchange_->state(out);
  if (outer_) outer_->state(out);
  return out;
}

NetworkSeconds DistributedStrategy::comm_model_1_gap_per_step() const {
  return acct_.size_exchange_seconds().times(exchange_->variable_allgathers_per_step());
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
  if (!averager_.due(step)) return;
  averager_.average(acct_, params, P, moments, stats);
  if (outer_) outer_->step(params, stats);
}

std::unique_ptr<DistributedStrategy> make_strategy(const DistributedConfig& config,
                                                   Communicator& comm, size_t P,
                                                   const std::vector<TensorView>& tensors) {
  return std::make_unique<DistributedStrategy>(config, comm, P, tensors);
}

std::unique_ptr<DistributedStrategy> make_strategy(const DistributedConfig& config,
                                                   Communicator& comm, size_t P) {
  return make_strategy(config, comm, P, one_vector(P));
}

}  // namespace sl
