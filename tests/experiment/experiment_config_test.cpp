// Keys of the experiment config that the reproduction v3 suite relies on.
#include "experiment/experiment_config.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace sl {
namespace {

nlohmann::json minimal() {
  return nlohmann::json::parse(R"({"name": "x", "seed": 3, "data": {"vocab_size": 100}})");
}

TEST(ExperimentConfig, SentencePieceFollowsTheSeedUnlessPinned) {
  ExperimentConfig a = parse_experiment_config(minimal(), "x.json", "");
  EXPECT_EQ(a.data.spm.seed, 3u);
  nlohmann::json j = minimal();
  j["data"]["spm_seed"] = 1;
  ExperimentConfig b = parse_experiment_config(j, "x.json", "");
  EXPECT_EQ(b.data.spm.seed, 1u);
  EXPECT_EQ(b.job.seed, 3u);  // training keeps its own seed
  EXPECT_EQ(b.job.resolved_config["data"]["spm_seed"], 1);
  j["data"]["spm_seed"] = -1;
  EXPECT_THROW(parse_experiment_config(j, "x.json", ""), InputError);
}

TEST(ExperimentConfig, FinalValidationScheduleIsParsedAndChecked) {
  nlohmann::json j = minimal();
  j["valid"] = {{"every", 100}, {"final_every", 25}, {"final_fraction", 0.3}};
  ExperimentConfig e = parse_experiment_config(j, "x.json", "");
  EXPECT_EQ(e.job.valid.final_every, 25);
  EXPECT_DOUBLE_EQ(e.job.valid.final_fraction, 0.3);
  j["valid"]["final_fraction"] = 1.5;
  try {
    parse_experiment_config(j, "x.json", "");
    FAIL() << "final_fraction 1.5 accepted";
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find("/valid/final_fraction"), std::string::npos) << x.what();
  }
}

}  // namespace
}  // namespace sl
