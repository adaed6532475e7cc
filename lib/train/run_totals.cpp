#include "train/run_totals.h"

namespace sl {

nlohmann::json RunTotals::modeled_json() const {
  nlohmann::json m = nlohmann::json::object();
  for (int i = 0; i < kNetworkPresetCount; ++i) m[network_preset_names()[i]] = modeled_s[i];
  m["configured"] = modeled_configured_s;
  return m;
}

nlohmann::json RunTotals::to_json() const {
  return {{"step", step},           {"tokens", tokens},       {"skipped_steps", skipped_steps},
          {"wall_s", wall_s},       {"modeled_time_s", modeled_json()},
          {"best_bleu", best_bleu}, {"best_step", best_step}, {"bytes_sent", bytes_sent}};
}

RunTotals RunTotals::from_json(const nlohmann::json& j) {
  RunTotals t;
  t.step = j.at("step");
  t.tokens = j.at("tokens");
  t.skipped_steps = j.value("skipped_steps", 0);
  t.wall_s = j.at("wall_s");
  for (int i = 0; i < kNetworkPresetCount; ++i)
    t.modeled_s[i] = j.at("modeled_time_s").at(network_preset_names()[i]);
  t.modeled_configured_s = j.at("modeled_time_s").at("configured");
  t.best_bleu = j.at("best_bleu");
  t.best_step = j.at("best_step");
  t.bytes_sent = j.value("bytes_sent", 0.0);
  return t;
}

}  // namespace sl
