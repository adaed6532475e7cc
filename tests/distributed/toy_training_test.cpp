#include "toy_training.h"

#include <gtest/gtest.h>

#include <cstring>

#include "distributed/simulated_cluster.h"

namespace sl {
namespace {

std::vector<toy::Run> run_simulated(int N, const DistributedConfig& cfg,
                                    const toy::Options& o = {}) {
  std::vector<toy::Run> runs(N);
  SimulatedCluster::run(N, [&](Communicator& c) { runs[c.rank()] = toy::train(c, cfg, o); });
  return runs;
}

TEST(ToyTraining, EveryMethodIsDeterministicAndEndsAveraged) {
  for (const auto& [name, cfg] : toy::methods()) {
    const auto a = run_simulated(4, cfg), b = run_simulated(4, cfg);
    for (int n = 0; n < 4; ++n) {
      EXPECT_EQ(a[n].serialize(), b[n].serialize()) << name << " node " << n;
      // Step 24 is an averaging step (K = 5); dense, powersgd and demo never diverge.
      EXPECT_EQ(0, std::memcmp(a[n].params.data(), a[0].params.data(), toy::kParams * 4)) << name;
    }
    EXPECT_LT(a[0].losses.back(), 0.8 * a[0].losses.front()) << name << " does not learn";
    if (cfg.average_every > 0) {
      EXPECT_TRUE(a[0].stats[4].averaged) << name;
      EXPECT_FALSE(a[0].stats[5].averaged) << name;
    } else {
      EXPECT_FALSE(a[0].stats[4].averaged) << name;
    }
    if (name == "sparse+sum" || name == "fedavg") {
      EXPECT_GT(a[0].stats[4].divergence, 0) << name;
    }
    if (name == "sparse") {
      EXPECT_EQ(0.0, a[0].stats[4].divergence) << name;
    }
  }
}

TEST(ToyTraining, DenseOnNNodesEqualsOneNodeOnTheUnionOfTheBatches) {
  const DistributedConfig dense = toy::methods()[0].second;
  for (bool adam : {false, true}) {
    toy::Options o;
    o.adam = adam;
    const auto multi = run_simulated(4, dense, o);
    o.union_of = 4;
    const auto single = run_simulated(1, dense, o);
    for (size_t i = 0; i < toy::kParams; ++i) {
      ASSERT_NEAR(single[0].first_update[i], multi[0].first_update[i], 1e-6) << i;
      ASSERT_NEAR(single[0].params[i], multi[2].params[i], 1e-4) << "adam=" << adam << " " << i;
    }
    EXPECT_EQ(single[0].stats[0].total_tokens, multi[3].stats[0].total_tokens);
  }
}

}  // namespace
}  // namespace sl
