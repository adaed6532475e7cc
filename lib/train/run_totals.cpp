#include "train/run_totals.h"

namespace sl {

nlohmann::json RunTotals::to_json() const {
  return {{"step", step},
          {"tokens", tokens},
          {"skipped_steps", skipped_steps},
          {"wall_s", wall_s},
          {"modeled_time_s", modeled_json()},
          {"best_bleu", best_bleu},
          {"best_step", best_step},
          {"bytes_sent", bytes_sent},
          {"comm_model", comm_model},
          {"kernels", kernels}};
}

RunTotals RunTotals::from_json(const nlohmann::json& j) {
  RunTotals t;
  t.step = j.at("step");
  t.tokens = j.at("tokens");
  t.skipped_steps = j.value("skipped_steps", 0);
  t.wall_s = j.at("wall_s");
  t.modeled = NetworkSeconds::from_json(j.at("modeled_time_s"));
  t.best_bleu = j.at("best_bleu");
  t.best_step = j.at("best_step");
  t.bytes_sent = j.value("bytes_sent", 0.0);
  t.comm_model = j.value("comm_model", 1);
  t.kernels = j.value("kernels", nlohmann::json::array());
  return t;
}

}  // namespace sl
