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
  EXPECT_EQ(0, s.average_every);  // sparse-only: U_n = G on every node, the copies stay equal
  for (const char* combiner : {"sum", "partial", "error"})
    EXPECT_EQ(500, DistributedConfig::from_json({{"method", "sparse"}, {"combiner", combiner}},
                                                "cfg.json")
                       .average_every)
        << combiner;
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
  EXPECT_EQ("cfg.json:/distributed/network/efficiency",
            error_where({{"network", {{"bandwidth_gbps", 1}, {"efficiency", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/network/efficiency",
            error_where({{"network", {{"bandwidth_gbps", 1}, {"efficiency", 1.2}}}}));
  EXPECT_EQ("cfg.json:/distributed/network/overhead_us",
            error_where({{"network", {{"bandwidth_gbps", 1}, {"overhead_us", -1}}}}));
}

TEST(DistributedConfig, TheMethodsAfterThePaperHaveTheirSourcesDefaults) {
  const DistributedConfig p = DistributedConfig::from_json({{"method", "powersgd"}}, "c");
  EXPECT_EQ(Method::PowerSgd, p.method);
  EXPECT_EQ(4, p.powersgd.rank);
  EXPECT_EQ(1000, p.powersgd.warmup_steps);
  EXPECT_TRUE(p.powersgd.warm_start);
  EXPECT_EQ(1.0, p.powersgd.min_compression_rate);
  EXPECT_EQ(0, p.powersgd.random_seed);
  EXPECT_EQ(0, p.average_every);  // the copies never diverge
  const DistributedConfig d = DistributedConfig::from_json({{"method", "diloco"}}, "c");
  EXPECT_EQ(0.7, d.diloco.outer_lr);
  EXPECT_EQ(0.9, d.diloco.outer_momentum);
  EXPECT_TRUE(d.diloco.nesterov);
  EXPECT_EQ(500, d.average_every);  // H
  const DistributedConfig m = DistributedConfig::from_json({{"method", "demo"}}, "c");
  EXPECT_EQ(0.999, m.demo.beta);
  EXPECT_EQ(64, m.demo.chunk);
  EXPECT_EQ(32, m.demo.topk);
  EXPECT_EQ(0, m.average_every);
  EXPECT_EQ("demo", m.method_name());
  EXPECT_FALSE(m.has_device_exchange());
  EXPECT_TRUE(DistributedConfig::from_json({{"method", "sparse"}}, "c").has_device_exchange());
}

TEST(DistributedConfig, TheMethodsAfterThePaperRoundTrip) {
  for (const nlohmann::json& j :
       {nlohmann::json{{"method", "powersgd"},
                       {"powersgd",
                        {{"rank", 2},
                         {"warmup_steps", 10},
                         {"warm_start", false},
                         {"min_compression_rate", 2.0},
                         {"random_seed", 3}}}},
        nlohmann::json{
            {"method", "diloco"},
            {"average_every", 50},
            {"diloco", {{"outer_lr", 1.0}, {"outer_momentum", 0.0}, {"nesterov", false}}}},
        nlohmann::json{{"method", "demo"},
                       {"encoding", "delta-varint"},
                       {"demo", {{"beta", 0.9}, {"chunk", 32}, {"topk", 8}}}}}) {
    const DistributedConfig d = DistributedConfig::from_json(j, "c");
    const nlohmann::json out = d.to_json();
    for (auto it = j.begin(); it != j.end(); ++it) EXPECT_EQ(it.value(), out[it.key()]) << it.key();
    EXPECT_EQ(out, DistributedConfig::from_json(out, "c").to_json());
  }
  // A method's section is written only for it: a dense run's config.json is unchanged.
  EXPECT_FALSE(DistributedConfig::from_json({{"method", "dense"}}, "c").to_json().contains("demo"));
}

TEST(DistributedConfig, TheMethodsAfterThePaperNameTheBadField) {
  EXPECT_EQ("cfg.json:/distributed/average_every",
            error_where({{"method", "diloco"}, {"average_every", 0}}));
  EXPECT_EQ("cfg.json:/distributed/average_moments",
            error_where({{"method", "diloco"}, {"average_moments", true}}));
  EXPECT_EQ("cfg.json:/distributed/combiner",
            error_where({{"method", "demo"}, {"combiner", "partial"}}));
  EXPECT_EQ("cfg.json:/distributed/powersgd/rank", error_where({{"powersgd", {{"rank", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/powersgd/min_compression_rate",
            error_where({{"powersgd", {{"min_compression_rate", 0.5}}}}));
  EXPECT_EQ("cfg.json:/distributed/powersgd/ranks", error_where({{"powersgd", {{"ranks", 2}}}}));
  EXPECT_EQ("cfg.json:/distributed/diloco/outer_momentum",
            error_where({{"diloco", {{"outer_momentum", 1.0}}}}));
  EXPECT_EQ("cfg.json:/distributed/diloco/outer_lr", error_where({{"diloco", {{"outer_lr", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/demo/beta", error_where({{"demo", {{"beta", 1.5}}}}));
  EXPECT_EQ("cfg.json:/distributed/demo/chunk", error_where({{"demo", {{"chunk", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/demo/topk", error_where({{"demo", {{"topk", 0}}}}));
  EXPECT_EQ("cfg.json:/distributed/demo", error_where({{"demo", 3}}));
}

// A method's settings under another method would be ignored: a forgotten "method" would train
// dense without a word. An empty section sets nothing and passes.
TEST(DistributedConfig, AMethodsSettingsUnderAnotherMethodAreAnError) {
  EXPECT_EQ("cfg.json:/distributed/powersgd", error_where({{"powersgd", {{"rank", 8}}}}));
  EXPECT_EQ("cfg.json:/distributed/diloco",
            error_where({{"method", "fedavg"}, {"diloco", {{"outer_lr", 0.5}}}}));
  EXPECT_EQ("cfg.json:/distributed/demo", error_where({{"method", "powersgd"}, {"demo", {{"topk", 8}}}}));
  EXPECT_EQ("(no error)", error_where({{"method", "demo"}, {"demo", {{"topk", 8}}}, {"powersgd", nlohmann::json::object()}}));
  try {
    DistributedConfig::from_json({{"diloco", {{"outer_lr", 0.5}}}}, "cfg.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("apply to method \"diloco\" only, got method \"dense\""),
              std::string::npos) << e.what();
  }
}

TEST(DistributedConfig, LengthWarningsNameTheSettingAndTheRunLength) {
  auto warnings = [](const nlohmann::json& j, int64_t max_steps) {
    return DistributedConfig::from_json(j, "cfg.json").setting_warnings(max_steps);
  };
  EXPECT_TRUE(warnings({{"method", "diloco"}}, 500).empty());  // H = 500: one outer step
  const auto diloco = warnings({{"method", "diloco"}}, 499);
  ASSERT_EQ(1u, diloco.size());
  EXPECT_EQ("distributed.average_every 500 > train.max_steps 499: the nodes never take an outer step in "
            "this run, so each trains alone and nothing is exchanged", diloco[0]);
  EXPECT_EQ(1u, warnings({{"method", "sparse"}, {"combiner", "partial"}, {"average_every", 40}}, 30).size());
  // Averaging copies that stay identical: bytes for nothing, whatever the run's length.
  const auto dense = warnings({{"method", "dense"}, {"average_every", 40}}, 30);
  ASSERT_EQ(1u, dense.size());
  EXPECT_EQ("distributed.average_every 40 under method dense, whose copies stay identical: each averaging "
            "only sends bytes", dense[0]);
  EXPECT_EQ(1u, warnings({{"method", "sparse"}, {"average_every", 10}}, 30).size());
  EXPECT_EQ(1u, warnings({{"method", "powersgd"}, {"average_every", 10}}, 3000).size());
  EXPECT_TRUE(warnings({{"method", "sparse"}, {"combiner", "partial"}, {"average_every", 10}}, 30).empty());
  const auto psgd = warnings({{"method", "powersgd"}}, 1000);  // warm-up 1000
  ASSERT_EQ(1u, psgd.size());
  EXPECT_EQ("distributed.powersgd.warmup_steps 1000 >= train.max_steps 1000: every update is in the dense "
            "warm-up, nothing is compressed", psgd[0]);
  EXPECT_TRUE(warnings({{"method", "powersgd"}}, 1001).empty());
  // DeMo: pairs32 costs 8 bytes per coefficient, dense 4 per value; a 4 x 4 chunk holds 16.
  EXPECT_TRUE(warnings({{"method", "demo"}, {"demo", {{"chunk", 4}, {"topk", 7}}}}, 10).empty());
  EXPECT_EQ(1u, warnings({{"method", "demo"}, {"demo", {{"chunk", 4}, {"topk", 8}}}}, 10).size());
  EXPECT_TRUE(
      warnings({{"method", "demo"}, {"encoding", "delta-varint"}, {"demo", {{"chunk", 4}, {"topk", 8}}}}, 10).empty());
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
  EXPECT_TRUE(g1.paper_model());
}

// The measured link's terms (issue 29): B -> eta B, a -> a + o, on both collectives.
TEST(RingNetworkModel, EfficiencyAndPerHopOverheadOfAMeasuredLink) {
  const RingNetworkModel m = RingNetworkModel::custom(1.0, 50.0, 0.8, 150.0);
  EXPECT_FALSE(m.paper_model());
  EXPECT_DOUBLE_EQ(0.8 * 1.25e8, m.bytes_per_second());
  EXPECT_DOUBLE_EQ(2.0 * 3 / 4 * 1e8 / 1e8 + 2 * 3 * 200e-6, m.allreduce_seconds(1e8, 4));
  EXPECT_DOUBLE_EQ(3 * 1e6 / 1e8 + 3 * 200e-6, m.allgather_seconds(1e6, 4));
  EXPECT_THROW(RingNetworkModel::custom(1, 0, 0.0), std::invalid_argument);
  EXPECT_THROW(RingNetworkModel::custom(1, 0, 1.5), std::invalid_argument);
  EXPECT_THROW(RingNetworkModel::custom(1, 0, 1.0, -1), std::invalid_argument);
  const DistributedConfig d = DistributedConfig::from_json(
      {{"network", {{"bandwidth_gbps", 1}, {"efficiency", 0.8}, {"overhead_us", 150}}}}, "c");
  EXPECT_DOUBLE_EQ(0.8, d.network.efficiency);
  EXPECT_DOUBLE_EQ(150.0, d.network.overhead_us);
  EXPECT_DOUBLE_EQ(0.8, d.to_json()["network"]["efficiency"].get<double>());
}

}  // namespace
}  // namespace sl
