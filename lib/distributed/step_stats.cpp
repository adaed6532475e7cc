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
}

}  // namespace sl
