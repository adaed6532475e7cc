#pragma once
#include <array>

#include "common/timer.h"
#include "distributed/communicator.h"
#include "distributed/network_seconds.h"
#include "distributed/ring_network_model.h"
#include "distributed/step_stats.h"

namespace sl {

// The version of the communication model behind `modeled_*` in the logs (log lines, run.json
// of a checkpoint, summary.json carry it as `comm_model`):
//   1  (no key; binaries before commit f22cced, 2026-12-06) a variable-size all-gather
//      modeled as its blocks only, leaving out the exchange of block sizes that precedes them
//   2  that size exchange modeled too: an all-gather of 8 bytes per node
// A run resumed from a version-1 checkpoint adds what version 1 left out of the steps done
// (DistributedStrategy::comm_model_1_gap_per_step; skipped steps exchanged nothing), so a
// run's clock is one model throughout (never resume a run with an older binary again: it
// would write unversioned rows on top of upgraded totals);
// the analysis (scripts/slanalysis/comm_model.py) upgrades version-1 logs the same way.
// Scalar sums (token counts, the divergence) are modeled as the 8-byte all-reduce they stand
// for, as a production system would run them; the communicators carry them as an 8-byte
// all-gather only to add in rank order (bit-identical MPI and simulated runs).
constexpr int kCommModelVersion = 2;

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
  // Communicator::allgather_bytes: the block sizes first (an all-gather of 8 bytes per
  // node), then the blocks, paced by the largest (ring_network_model.h).
  void model_variable_allgather(StepStats& s, double max_bytes_per_node) const;
  // The size exchange of one variable all-gather alone, on every network.
  NetworkSeconds size_exchange_seconds() const;

  Communicator& comm() { return comm_; }
  const RingNetworkModel& network() const { return configured_; }

 private:
  // seconds(model) for the configured network and every preset, added to t.
  template <class F>
  void book(NetworkSeconds& t, F&& seconds) const {
    t.configured += seconds(configured_);
    for (int p = 0; p < kNetworkPresetCount; ++p) t.preset[p] += seconds(presets_[p]);
  }

  Communicator& comm_;
  RingNetworkModel configured_;
  std::array<RingNetworkModel, kNetworkPresetCount> presets_;
};

}  // namespace sl
