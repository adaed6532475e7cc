#include "distributed/step_stats.h"

namespace sl {

void StepStats::to_json(nlohmann::json& j) const {
  j["step"] = step;
  j["node"] = node;
  j["nodes"] = nodes;
  j["total_tokens"] = total_tokens;
  if (sparse()) {
    j["rho"] = drop_ratio;
    j["k_target"] = k_target;
    j["pairs"] = k_selected;
    j["tau"] = tau;
    j["encoded_bytes"] = encoded_bytes;
    j["bytes_per_pair"] = bytes_per_pair;
    j["compress_s"] = compress_seconds;
    j["decompress_s"] = decompress_seconds;
  }
  if (lowrank_rank >= 0) {
    j["powersgd_rank"] = lowrank_rank;
    j["compressed"] = lowrank_compressed;
    j["lowrank_floats"] = lowrank_floats;
    j["dense_floats"] = dense_floats;
  }
  if (dct_chunks >= 0) {
    j["chunks"] = dct_chunks;
    j["pairs"] = dct_pairs;
    j["encoded_bytes"] = encoded_bytes;
    j["bytes_per_pair"] = bytes_per_pair;
  }
  if (lowrank_rank >= 0 || dct_chunks >= 0) {
    j["compress_s"] = compress_seconds;
    j["decompress_s"] = decompress_seconds;
  }
  if (j.contains("compress_s") && compress_clock) j["compress_clock"] = compress_clock;
  j["bytes_sent"] = bytes_sent;
  j["bytes_received"] = bytes_received;
  j["analytic_bytes_sent"] = analytic_bytes_sent;
  j["control_bytes_sent"] = control_bytes_sent;
  j["control_bytes_received"] = control_bytes_received;
  j["comm_s"] = comm_seconds;
  j["network"] = network;
  j["modeled_comm_s"] = modeled_comm.to_json(network);
  j["averaged"] = averaged;
  if (averaged) {
    j["divergence"] = divergence;
    j["divergence_after"] = divergence_after;
  }
  if (outer_delta_norm >= 0) j["outer_delta_norm"] = outer_delta_norm;
}

}  // namespace sl
