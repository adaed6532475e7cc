#pragma once
#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "distributed/ring_network_model.h"

namespace sl {

// A modeled time for every network the logs report at once: each preset of
// network_preset_names() and the configured network. Logs carry all of them so a run can be
// re-plotted for any network without rerunning it.
struct NetworkSeconds {
  std::array<double, kNetworkPresetCount> preset{};
  double configured = 0;

  // Each time plus s (a step's compute time added to its modeled communication).
  NetworkSeconds plus(double s) const;
  NetworkSeconds& operator+=(const NetworkSeconds& o);
  NetworkSeconds times(double k) const;  // each time scaled by k
  // {"1gbe": s, "10gbe": s, "ib100": s, <configured_key>: s}; no configured entry when
  // configured_key is empty.
  nlohmann::json to_json(const std::string& configured_key = "configured") const;
  static NetworkSeconds from_json(const nlohmann::json& j,
                                  const std::string& configured_key = "configured");
};

}  // namespace sl
