#include "distributed/comm_accounting.h"

#include <stdexcept>
#include <string>

namespace sl {

CommAccounting::CommAccounting(Communicator& comm, RingNetworkModel configured)
    : comm_(comm), configured_(std::move(configured)) {
  for (int p = 0; p < kNetworkPresetCount; ++p)
    presets_[p] = RingNetworkModel::preset(network_preset_names()[p]);
}

void CommAccounting::model_allreduce(StepStats& s, double bytes) const {
  const int N = comm_.size();
  book(s.modeled_comm, [&](const RingNetworkModel& m) { return m.allreduce_seconds(bytes, N); });
}

void CommAccounting::model_variable_allgather(StepStats& s, double max_bytes_per_node) const {
  const int N = comm_.size();
  book(s.modeled_comm, [&](const RingNetworkModel& m) {
    return m.allgather_seconds(sizeof(uint64_t), N) + m.allgather_seconds(max_bytes_per_node, N);
  });
}

NetworkSeconds CommAccounting::size_exchange_seconds() const {
  NetworkSeconds t;
  const int N = comm_.size();
  book(t, [&](const RingNetworkModel& m) { return m.allgather_seconds(sizeof(uint64_t), N); });
  return t;
}

int64_t CommAccounting::allreduce_token_count(StepStats& s, int64_t local_tokens) {
  int64_t total = 0;
  measure(s, [&] { total = comm_.allreduce_sum(local_tokens); });
  model_allreduce(s, sizeof(int64_t));
  if (total <= 0)
    throw std::runtime_error("normalize_gradient: the global batch has " + std::to_string(total) +
                             " target tokens");
  s.total_tokens = total;
  return total;
}

}  // namespace sl
