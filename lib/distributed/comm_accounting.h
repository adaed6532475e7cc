#pragma once
#include <array>

#include "common/timer.h"
#include "distributed/communicator.h"
#include "distributed/ring_network_model.h"
#include "distributed/step_stats.h"

namespace sl {

// Books every collective of a strategy into StepStats: the measured wall time and the
// Communicator's byte counters around the call, and the modeled time on the configured
// network and on every preset.
class CommAccounting {
 public:
  CommAccounting(Communicator& comm, RingNetworkModel configured);

  template <class F>
  void measure(StepStats& s, F&& collective) {
    const CommCounters before = comm_.counters();
    const double t0 = wall_seconds();
    collective();
    s.comm_seconds += wall_seconds() - t0;
    const CommCounters d = comm_.counters() - before;
    s.bytes_sent += d.bytes_sent;
    s.bytes_received += d.bytes_received;
    s.control_bytes_sent += d.control_bytes_sent;
    s.control_bytes_received += d.control_bytes_received;
  }

  void model_allreduce(StepStats& s, double bytes) const;
  // The global batch's target-token count: all-reduced and booked into s (s.total_tokens
  // set). Throws std::runtime_error when it is 0: g_n = grad / total would be undefined.
  int64_t allreduce_token_count(StepStats& s, int64_t local_tokens);
  void model_allgather(StepStats& s, double max_bytes_per_node) const;

  Communicator& comm() { return comm_; }
  const RingNetworkModel& network() const { return configured_; }

 private:
  Communicator& comm_;
  RingNetworkModel configured_;
  std::array<RingNetworkModel, kNetworkPresetCount> presets_;
};

}  // namespace sl
