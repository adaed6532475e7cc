#include "distributed/distributed_config.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace sl {
namespace {

std::string error_where(const nlohmann::json& j) {
  try {
    DistributedConfig::from_json(j, "cfg.json");
  } catch (const InputError& e) {
    return e.where();
  }
  return "(no error)";
}

TEST(DistributedConfig, Defaults) {
  const DistributedConfig d = DistributedConfig::from_json(nlohmann::json::object(), "cfg.json");
  EXPECT_EQ(Method::Dense, d.method);
  EXPECT_EQ(0, d.average_every);  // dense copies never diverge
  EXPECT_EQ("10gbe", d.network.name);
  const DistributedConfig s = DistributedConfig::from_json({{"method", "sparse"}}, "cfg.json");
  EXPECT_EQ(0.99, s.drop_ratio);
  EXPECT_EQ(500, s.average_every);
  EXPECT_EQ(1000, s.drop_warmup_steps);
  EXPECT_EQ(100000, s.sample_size);
  EXPECT_EQ(ThresholdMode::Exact, s.threshold);
  EXPECT_EQ(PairEncodingKind::Pairs32, s.encoding);
  EXPECT_FALSE(s.average_moments);
  EXPECT_EQ("sparse", s.method_name());
}

TEST(DistributedConfig, ParsesEveryFieldAndRoundTrips) {
  const nlohmann::json j = {
      {"method", "sparse"},         {"combiner", "partial"},
      {"drop_ratio", 0.9},          {"threshold", "sampled"},
      {"sample_size", 5000},        {"drop_warmup_steps", 0},
      {"average_every", 100},       {"average_moments", true},
      {"encoding", "delta-varint"}, {"network", {{"bandwidth_gbps", 25}, {"latency_us", 5}}}};
  const DistributedConfig d = DistributedConfig::from_json(j, "cfg.json");
  EXPECT_EQ(CombinerKind::Partial, d.combiner);
  EXPECT_EQ(ThresholdMode::Sampled, d.threshold);
  EXPECT_EQ(PairEncodingKind::DeltaVarint, d.encoding);
  EXPECT_EQ("custom", d.network.name);
  EXPECT_EQ(25.0, d.network.bandwidth_gbps);
  EXPECT_EQ("sparse+partial", d.method_name());
  EXPECT_EQ(j, d.to_json());
  EXPECT_EQ("ib100", DistributedConfig::from_json({{"network", "ib100"}}, "c").network.name);
}

TEST(DistributedConfig, ErrorsNameTheJsonPointer) {
  EXPECT_EQ("cfg.json:/distributed/combiner", error_where({{"combiner", "partial"}}));
  EXPECT_EQ("cfg.json:/distributed/combiner",
            error_where({{"method", "fedavg"}, {"combiner", "sum"}}));
  EXPECT_EQ("cfg.json:/distributed/average_every",
            error_where({{"method", "fedavg"}, {"average_every", 0}}));
  EXPECT_EQ("cfg.json:/distributed/drop_ratio", error_where({{"drop_ratio", 1.0}}));
  EXPECT_EQ("cfg.json:/distributed/drop_ratio", error_where({{"drop_ratio", -0.1}}));
  EXPECT_EQ("cfg.json:/distributed/method", error_where({{"method", "async"}}));
  EXPECT_EQ("cfg.json:/distributed/threshold", error_where({{"threshold", "approx"}}));
  EXPECT_EQ("cfg.json:/distributed/encoding", error_where({{"encoding", "zip"}}));
  EXPECT_EQ("cfg.json:/distributed/sample_size", error_where({{"sample_size", 0}}));
  EXPECT_EQ("cfg.json:/distributed/drop_rate", error_where({{"drop_rate", 0.9}}));  // unknown
  EXPECT_EQ("cfg.json:/distributed/network", error_where({{"network", "5g"}}));
  EXPECT_EQ("cfg.json:/distributed/network", error_where({{"network", 10}}));
  EXPECT_EQ("cfg.json:/distributed/network/bandwidth_gbps",
            error_where({{"network", {{"bandwidth_gbps", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/network/bandwidth_gbps",
            error_where({{"network", {{"latency_us", 3}}}}));
  EXPECT_EQ("cfg.json:/distributed/network/latency",
            error_where({{"network", {{"bandwidth_gbps", 1}, {"latency", 3}}}}));
  EXPECT_EQ("cfg.json:/distributed/average_moments", error_where({{"average_moments", 1}}));
}

TEST(RingNetworkModel, PresetsAndFormulas) {
  const RingNetworkModel g1 = RingNetworkModel::preset("1gbe");
  EXPECT_EQ(1.25e8, g1.bytes_per_second());
  // ring all-reduce of b bytes: 2(N-1)/N b/B + 2(N-1) a
  EXPECT_DOUBLE_EQ(2.0 * 3 / 4 * 1e8 / 1.25e8 + 2 * 3 * 50e-6, g1.allreduce_seconds(1e8, 4));
  // ring all-gather, b bytes per node: (N-1) b/B + (N-1) a
  EXPECT_DOUBLE_EQ(3 * 1e6 / 1.25e8 + 3 * 50e-6, g1.allgather_seconds(1e6, 4));
  EXPECT_EQ(0.0, g1.allreduce_seconds(1e8, 1));
  const RingNetworkModel ib = RingNetworkModel::preset("ib100");
  EXPECT_EQ(100.0, ib.bandwidth_gbps);
  EXPECT_EQ(2.0, ib.latency_us);
  EXPECT_EQ(20.0, RingNetworkModel::preset("10gbe").latency_us);
  EXPECT_THROW(RingNetworkModel::preset("wifi"), std::invalid_argument);
  EXPECT_THROW(RingNetworkModel::custom(0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace sl
