#pragma once
#include <array>
#include <string>

namespace sl {

// Modeled communication time on a ring of N nodes with link bandwidth B and latency a
// (PAPER.md "Bytes on the wire, and modeled time"):
//   ring all-reduce of b bytes:           2(N-1)/N * b / B + 2(N-1) a
//   ring all-gather, b bytes per node:    (N-1) b / B + (N-1) a
// With different sizes per node the ring all-gather is paced by the largest block (each of
// its N-1 steps forwards every block once and ends when the largest one has arrived), so
// callers pass the maximum over nodes.
// Two terms measured on a real link (results/clock/validation.md, issue 29) extend it:
// an efficiency eta, the share of B that carries payload (B becomes eta B), and a per-hop
// software overhead o (a becomes a + o). eta = 1 and o = 0, PAPER.md's model, unless set.
struct RingNetworkModel {
  std::string name;           // a preset name, or "custom"
  double bandwidth_gbps = 0;  // Gbit/s, 1e9 bits per second
  double latency_us = 0;      // per message hop
  double efficiency = 1.0;    // eta in (0, 1]
  double overhead_us = 0.0;   // o >= 0, per message hop

  double bytes_per_second() const { return efficiency * bandwidth_gbps * 1e9 / 8.0; }
  double hop_seconds() const { return (latency_us + overhead_us) * 1e-6; }
  double allreduce_seconds(double bytes, int N) const;
  double allgather_seconds(double bytes_per_node, int N) const;

  // The presets: "1gbe" 1 Gbit/s, 50 us (commodity Ethernet through a switch, TCP);
  // "10gbe" 10 Gbit/s, 20 us (datacenter Ethernet, TCP); "ib100" 100 Gbit/s, 2 us
  // (InfiniBand EDR, RDMA). The latencies are typical MPI small-message ping-pong halves.
  static RingNetworkModel preset(const std::string& name);  // throws invalid_argument
  static RingNetworkModel custom(double bandwidth_gbps, double latency_us,
                                 double efficiency = 1.0, double overhead_us = 0.0);
  bool paper_model() const { return efficiency == 1.0 && overhead_us == 0.0; }
};

constexpr int kNetworkPresetCount = 3;
const std::array<std::string, kNetworkPresetCount>& network_preset_names();

}  // namespace sl
