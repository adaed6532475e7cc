#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "distributed/ring_network_model.h"

namespace sl {

// The trainer's running totals, kept by rank 0 and saved in each checkpoint's run.json so
// a resumed run continues its clocks and its best-BLEU bookkeeping.
struct RunTotals {
  int64_t step = 0;  // optimizer steps done
  int64_t tokens = 0;
  int64_t skipped_steps = 0;
  double wall_s = 0;  // training wall time, validation included
  std::array<double, kNetworkPresetCount> modeled_s{};
  double modeled_configured_s = 0;
  double best_bleu = -1;
  int64_t best_step = 0;
  double bytes_sent = 0;  // sum over steps of the mean bytes sent per node

  nlohmann::json to_json() const;
  static RunTotals from_json(const nlohmann::json& j);
  nlohmann::json modeled_json() const;  // {"1gbe": s, ..., "configured": s}
};

}  // namespace sl
