#include "distributed/network_seconds.h"

namespace sl {

NetworkSeconds NetworkSeconds::plus(double s) const {
  NetworkSeconds r = *this;
  for (double& p : r.preset) p += s;
  r.configured += s;
  return r;
}

NetworkSeconds& NetworkSeconds::operator+=(const NetworkSeconds& o) {
  for (int i = 0; i < kNetworkPresetCount; ++i) preset[i] += o.preset[i];
  configured += o.configured;
  return *this;
}

NetworkSeconds NetworkSeconds::times(double k) const {
  NetworkSeconds r = *this;
  for (double& p : r.preset) p *= k;
  r.configured *= k;
  return r;
}

nlohmann::json NetworkSeconds::to_json(const std::string& configured_key) const {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kNetworkPresetCount; ++i) j[network_preset_names()[i]] = preset[i];
  if (!configured_key.empty()) j[configured_key] = configured;
  return j;
}

NetworkSeconds NetworkSeconds::from_json(const nlohmann::json& j,
                                         const std::string& configured_key) {
  NetworkSeconds s;
  for (int i = 0; i < kNetworkPresetCount; ++i) s.preset[i] = j.at(network_preset_names()[i]);
  s.configured = j.at(configured_key);
  return s;
}

}  // namespace sl
