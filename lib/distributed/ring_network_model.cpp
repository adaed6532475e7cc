#include "distributed/ring_network_model.h"

#include <stdexcept>

namespace sl {

double RingNetworkModel::allreduce_seconds(double bytes, int N) const {
  if (N <= 1) return 0.0;
  return 2.0 * (N - 1) / N * bytes / bytes_per_second() + 2.0 * (N - 1) * hop_seconds();
}

double RingNetworkModel::allgather_seconds(double bytes_per_node, int N) const {
  if (N <= 1) return 0.0;
  return (N - 1) * bytes_per_node / bytes_per_second() + (N - 1) * hop_seconds();
}

const std::array<std::string, kNetworkPresetCount>& network_preset_names() {
  static const std::array<std::string, kNetworkPresetCount> names = {"1gbe", "10gbe", "ib100"};
  return names;
}

RingNetworkModel RingNetworkModel::preset(const std::string& name) {
  if (name == "1gbe") return {name, 1.0, 50.0};
  if (name == "10gbe") return {name, 10.0, 20.0};
  if (name == "ib100") return {name, 100.0, 2.0};
  throw std::invalid_argument("unknown network preset \"" + name + "\"");
}

RingNetworkModel RingNetworkModel::custom(double bandwidth_gbps, double latency_us,
                                          double efficiency, double overhead_us) {
  if (!(bandwidth_gbps > 0) || !(latency_us >= 0))
    throw std::invalid_argument("network: bandwidth must be > 0 and latency >= 0");
  if (!(efficiency > 0 && efficiency <= 1) || !(overhead_us >= 0))
    throw std::invalid_argument("network: efficiency must be in (0, 1] and overhead >= 0");
  return {"custom", bandwidth_gbps, latency_us, efficiency, overhead_us};
}

}  // namespace sl
