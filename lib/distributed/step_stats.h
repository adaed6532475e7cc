#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "distributed/network_seconds.h"

namespace sl {

// What the distributed strategy did on one node in one step; one log line's worth.
// Filled by DistributedStrategy::exchange (which starts a new record and folds in the
// token-count all-reduce of normalize_gradient) and after_update (averaging).
struct StepStats {
  int64_t step = -1;  // 0-based
  int node = 0, nodes = 1;
  int64_t total_tokens = 0;  // sum over nodes of the target tokens of this step

  // Sparse only (else -1; sparse() tells): rho_t used, pairs asked for / actually sent by
  // this node, tau_n, and this node's encoded S_n.
  double drop_ratio = -1;
  int64_t k_target = -1, k_selected = -1;
  double tau = -1;
  int64_t encoded_bytes = -1;
  double bytes_per_pair = -1;

  // PowerSGD only (lowrank_rank >= 0): r, whether this step compressed (false during the
  // dense warm-up), and the floats this node all-reduced as the P and Q factors / densely.
  int64_t lowrank_rank = -1;
  bool lowrank_compressed = false;
  int64_t lowrank_floats = -1, dense_floats = -1;
  // DeMo only (dct_chunks >= 0): DCT chunks and the (index, value) pairs this node sent
  // (encoded_bytes and bytes_per_pair as for sparse).
  int64_t dct_chunks = -1, dct_pairs = -1;

  // Payload this node actually sent / received (Communicator counters), and PAPER.md's
  // formula for what it sends; they agree whenever N divides the dense sizes.
  uint64_t bytes_sent = 0, bytes_received = 0;
  double analytic_bytes_sent = 0;
  // Sizes and scalars (token counts, divergence): real traffic, not in the formulas.
  uint64_t control_bytes_sent = 0, control_bytes_received = 0;

  // Local work of a compressing exchange: sparse: selection + packing + residual update, then
  // the scatter-add of the N received S_m into G; powersgd: the products and
  // orthonormalisation, then G = P^ Q^T and E_n; demo: momentum, DCT, top-k, IDCT of the sent
  // part, then the scatter-add and the IDCT of the sum. Read on `compress_clock`: "thread_cpu"
  // on the CPU (as compute_s: simulated nodes sharing cores do not inflate it; binaries before
  // 2026-12-07 read the wall clock here, which did), "device_wall" for the CUDA exchange (the
  // wall clock after a device synchronisation).
  double compress_seconds = 0;
  double decompress_seconds = 0;
  const char* compress_clock = nullptr;
  double comm_seconds = 0;  // wall time inside collectives, waiting included
  // Modeled time of this step's collectives on the configured network, and on each preset
  // of network_preset_names() so logs can be re-plotted for any of them.
  std::string network;  // the configured network's name ("custom" when not a preset)
  NetworkSeconds modeled_comm;

  bool averaged = false;
  double divergence = -1;        // mean_n ||theta_n - mean_m theta_m||_2 before averaging
  double divergence_after = -1;  // 0 after averaging (the copies are then bit-identical)
  double outer_delta_norm = -1;  // diloco, at an outer step: ||Delta||_2 (mean pseudo-gradient)

  // The one test of "was this a sparse exchange step" (the sparse fields are set).
  bool sparse() const { return k_selected >= 0; }

  // Adds the fields to the object j, named as in docs/LOG_FORMAT.md where it has them:
  // "rho", "pairs" (= k_selected), "comm_s", "bytes_sent", "modeled_comm_s" (an object
  // {"1gbe": s, "10gbe": s, "ib100": s, and "custom": s for a custom network}), ...
  void to_json(nlohmann::json& j) const;
};

}  // namespace sl
