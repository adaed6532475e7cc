// Every method and combiner through make_strategy + SimulatedCluster, against the reference.
#include <gtest/gtest.h>

#include "distributed/distributed_strategy.h"
#include "distributed/simulated_cluster.h"
#include "distributed/wire_bytes.h"
#include "reference_methods.h"

namespace sl {
namespace {

constexpr int kSteps = 3;

DistributedConfig config(const std::string& method, const std::string& combiner, double rho,
                         const std::string& encoding = "pairs32") {
  nlohmann::json j = {{"method", method},
                      {"drop_ratio", rho},
                      {"drop_warmup_steps", 0},
                      {"encoding", encoding},
                      {"average_every", method == "fedavg" ? 1000 : 0}};
  if (combiner != "none") j["combiner"] = combiner;
  return DistributedConfig::from_json(j, "test");
}

ref::Vec grad_of(int node, int step, size_t P) {
  return ref::gradient_like(11, node * 100 + step, P);
}

struct ClusterRun {
  std::vector<std::vector<ref::Vec>> U;       // [step][node]
  std::vector<std::vector<StepStats>> stats;  // [step][node]
};

ClusterRun run_cluster(int N, const DistributedConfig& cfg, size_t P) {
  ClusterRun out;
  out.U.assign(kSteps, std::vector<ref::Vec>(N));
  out.stats.assign(kSteps, std::vector<StepStats>(N));
  SimulatedCluster::run(N, [&](Communicator& c) {
    auto s = make_strategy(cfg, c, P);
    for (int t = 0; t < kSteps; ++t) {
      ref::Vec g = grad_of(c.rank(), t, P);
      s->exchange(g.data(), t, out.stats[t][c.rank()]);
      out.U[t][c.rank()] = g;
    }
  });
  return out;
}

std::vector<std::vector<ref::Vec>> run_reference(int N, const std::string& method,
                                                 const std::string& combiner, double rho,
                                                 size_t P) {
  std::vector<ref::Vec> E(N, ref::Vec(P, 0.0f));
  std::vector<std::vector<ref::Vec>> U;
  for (int t = 0; t < kSteps; ++t) {
    std::vector<ref::Vec> g(N);
    for (int n = 0; n < N; ++n) g[n] = grad_of(n, t, P);
    U.push_back(ref::step(method, combiner, g, E, rho));
  }
  return U;
}

struct Case {
  std::string method, combiner;
};

TEST(Strategy, EveryMethodAndCombinerMatchesTheReference) {
  const std::vector<Case> cases = {{"dense", "none"}, {"fedavg", "none"},    {"sparse", "none"},
                                   {"sparse", "sum"}, {"sparse", "partial"}, {"sparse", "error"}};
  const size_t P = 1001;
  for (const Case& c : cases)
    for (int N = 1; N <= 4; ++N)
      for (double rho : {0.0, 0.5, 0.9, 0.99}) {
        if (c.method != "sparse" && rho != 0.0) continue;
        for (const std::string enc : {"pairs32", "delta-varint"}) {
          if (c.method != "sparse" && enc != "pairs32") continue;
          const ClusterRun got = run_cluster(N, config(c.method, c.combiner, rho, enc), P);
          const auto want = run_reference(N, c.method, c.combiner, rho, P);
          for (int t = 0; t < kSteps; ++t)
            for (int n = 0; n < N; ++n)
              ASSERT_EQ(0u, ref::mismatches(want[t][n], got.U[t][n]))
                  << c.method << "+" << c.combiner << " N=" << N << " rho=" << rho << " enc=" << enc
                  << " step " << t << " node " << n;
        }
      }
}

TEST(Strategy, SparseWithRhoZeroEqualsDense) {
  const size_t P = 777;
  for (int N = 1; N <= 4; ++N) {
    const ClusterRun dense = run_cluster(N, config("dense", "none", 0.0), P);
    const ClusterRun sparse = run_cluster(N, config("sparse", "none", 0.0), P);
    for (int t = 0; t < kSteps; ++t)
      for (int n = 0; n < N; ++n) {
        EXPECT_EQ(0u, ref::mismatches(dense.U[t][n], sparse.U[t][n])) << "N=" << N;
        EXPECT_EQ(int64_t(P), sparse.stats[t][n].k_selected);
      }
  }
}

TEST(Strategy, LocalCombinersDifferFromSparseOnlyExactlyByTheirFormula) {
  const size_t P = 1001;
  const double rho = 0.9;
  for (int N : {2, 4}) {
    const ClusterRun none = run_cluster(N, config("sparse", "none", rho), P);
    const ClusterRun sum = run_cluster(N, config("sparse", "sum", rho), P);
    const ClusterRun partial = run_cluster(N, config("sparse", "partial", rho), P);
    const ClusterRun error = run_cluster(N, config("sparse", "error", rho), P);
    for (int n = 0; n < N; ++n) {  // step 0: every variant starts from E_n = 0
      const ref::Vec g = grad_of(n, 0, P);
      ref::Vec E(P, 0.0f);
      const ref::Vec S = ref::compress(g, E, rho);
      const ref::Vec& G = none.U[0][n];
      for (size_t i = 0; i < P; ++i) {
        ASSERT_EQ(G[i] + g[i], sum.U[0][n][i]);
        ASSERT_EQ((G[i] - S[i]) + g[i], partial.U[0][n][i]);
        ASSERT_EQ(G[i] + E[i], error.U[0][n][i]);
      }
    }
  }
}

TEST(Strategy, ByteCountsEqualTheAnalyticSizes) {
  const size_t P = 1200;  // divisible by N = 1..4: dense bytes are exact per node
  for (int N = 1; N <= 4; ++N) {
    const ClusterRun dense = run_cluster(N, config("dense", "none", 0.0), P);
    for (int n = 0; n < N; ++n) {
      const StepStats& s = dense.stats[0][n];
      EXPECT_EQ(double(s.bytes_sent), analytic_allreduce_bytes(P, N));
      EXPECT_EQ(double(s.bytes_sent), s.analytic_bytes_sent);
      EXPECT_EQ(s.bytes_received, s.bytes_sent);
      EXPECT_EQ(double(s.bytes_sent), 2.0 * (N - 1) / N * 4 * P);
    }
    for (const std::string enc : {"pairs32", "delta-varint"}) {
      const ClusterRun sp = run_cluster(N, config("sparse", "none", 0.99, enc), P);
      for (int t = 0; t < kSteps; ++t) {
        uint64_t all_bytes = 0;
        for (int n = 0; n < N; ++n) all_bytes += sp.stats[t][n].encoded_bytes;
        for (int n = 0; n < N; ++n) {
          const StepStats& s = sp.stats[t][n];
          if (enc == "pairs32") {
            EXPECT_EQ(8 * s.k_selected, s.encoded_bytes);
          }
          EXPECT_DOUBLE_EQ(s.bytes_per_pair, double(s.encoded_bytes) / s.k_selected);
          EXPECT_EQ(uint64_t((N - 1) * s.encoded_bytes), s.bytes_sent);
          EXPECT_EQ(double(s.bytes_sent), s.analytic_bytes_sent);
          EXPECT_EQ(all_bytes - s.encoded_bytes, s.bytes_received);
          EXPECT_EQ(uint64_t(N - 1) * 8, s.control_bytes_sent);  // the sizes
        }
      }
    }
    const ClusterRun fed = run_cluster(N, config("fedavg", "none", 0.0), P);
    EXPECT_EQ(0u, fed.stats[0][0].bytes_sent + fed.stats[0][0].control_bytes_sent);
  }
}

TEST(Strategy, DeltaVarintSizeIsTheVarintLengthOfTheReferenceIndices) {
  const size_t P = 5000;
  const ClusterRun sp = run_cluster(3, config("sparse", "none", 0.99, "delta-varint"), P);
  for (int n = 0; n < 3; ++n) {
    ref::Vec E(P, 0.0f);
    const ref::Vec S = ref::compress(grad_of(n, 0, P), E, 0.99);
    size_t bytes = 0;
    int64_t prev = -1;
    for (size_t i = 0; i < P; ++i)
      if (S[i] != 0.0f) bytes += ref::varint_bytes(i - prev - 1) + 4, prev = int64_t(i);
    EXPECT_EQ(int64_t(bytes), sp.stats[0][n].encoded_bytes);
  }
}

TEST(Strategy, WarmupRampsTheDropRatio) {
  const size_t P = 10000;
  nlohmann::json j = {{"method", "sparse"}, {"drop_ratio", 0.99}, {"drop_warmup_steps", 2}};
  const DistributedConfig cfg = DistributedConfig::from_json(j, "test");
  const ClusterRun r = run_cluster(2, cfg, P);
  const double expect[kSteps] = {std::pow(0.99, 2.0), std::pow(0.99, 1.0), 0.99};
  for (int t = 0; t < kSteps; ++t) {
    EXPECT_DOUBLE_EQ(expect[t], r.stats[t][0].drop_ratio);
    EXPECT_EQ(int64_t(ref::k_of(P, expect[t])), r.stats[t][0].k_target);
  }
}

TEST(Strategy, CommModel1GapIsOneSizeExchangePerSparseStep) {
  // What binaries before comm model 2 left out of a step: for gradient dropping, the sizes'
  // all-gather (8 bytes per node); dense and fedavg have no variable all-gather.
  // demo gathers its DCT pairs every step too; powersgd and diloco only all-reduce.
  const auto plain = [](const std::string& method, int K) {
    return DistributedConfig::from_json({{"method", method}, {"average_every", K}}, "test");
  };
  std::vector<NetworkSeconds> gap(6);
  SimulatedCluster::run(4, [&](Communicator& c) {
    if (c.rank() != 0) return;
    gap[0] = make_strategy(config("sparse", "partial", 0.99), c, 100)->comm_model_1_gap_per_step();
    gap[1] = make_strategy(plain("demo", 0), c, 100)->comm_model_1_gap_per_step();
    gap[2] = make_strategy(config("dense", "none", 0.0), c, 100)->comm_model_1_gap_per_step();
    gap[3] = make_strategy(config("fedavg", "none", 0.0), c, 100)->comm_model_1_gap_per_step();
    gap[4] = make_strategy(plain("powersgd", 0), c, 100)->comm_model_1_gap_per_step();
    gap[5] = make_strategy(plain("diloco", 50), c, 100)->comm_model_1_gap_per_step();
  });
  for (int i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(3 * 8 / 1.25e9 + 3 * 20e-6, gap[i].configured) << i;  // 10gbe
    EXPECT_DOUBLE_EQ(3 * 8 / 1.25e8 + 3 * 50e-6, gap[i].preset[0]) << i;   // 1gbe
    EXPECT_DOUBLE_EQ(3 * 8 / 1.25e10 + 3 * 2e-6, gap[i].preset[2]) << i;   // ib100
  }
  for (int i = 2; i < 6; ++i) {
    EXPECT_EQ(0.0, gap[i].configured);
    for (double p : gap[i].preset) EXPECT_EQ(0.0, p);
  }
}

TEST(Strategy, NormalizeGradientDividesByTheGlobalTokenCount) {
  std::vector<int64_t> totals(3);
  std::vector<StepStats> stats(3);
  SimulatedCluster::run(3, [&](Communicator& c) {
    auto s = make_strategy(config("dense", "none", 0.0), c, 4);
    std::vector<float> g(4, 12.0f);
    totals[c.rank()] = s->normalize_gradient(g.data(), 2 + c.rank());
    for (float x : g) EXPECT_EQ(12.0f * float(1.0 / 9.0), x);
    s->exchange(g.data(), 0, stats[c.rank()]);
    EXPECT_THROW(s->normalize_gradient(g.data(), 0), std::runtime_error);
  });
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(9, totals[n]);
    EXPECT_EQ(9, stats[n].total_tokens);
    EXPECT_EQ(2u * 8, stats[n].control_bytes_sent);  // folded into the step's record
  }
}

TEST(Strategy, ModeledTimeFollowsTheRingFormulas) {
  const size_t P = 1200;
  const ClusterRun dense = run_cluster(4, config("dense", "none", 0.0), P);
  const StepStats& s = dense.stats[0][0];
  const RingNetworkModel net = RingNetworkModel::preset("10gbe");
  EXPECT_DOUBLE_EQ(net.allreduce_seconds(4.0 * P, 4), s.modeled_comm.configured);
  for (int p = 0; p < kNetworkPresetCount; ++p)
    EXPECT_DOUBLE_EQ(
        RingNetworkModel::preset(network_preset_names()[p]).allreduce_seconds(4.0 * P, 4),
        s.modeled_comm.preset[p]);
  const ClusterRun sp = run_cluster(4, config("sparse", "none", 0.99), P);
  int64_t max_block = 0;
  for (int n = 0; n < 4; ++n) max_block = std::max(max_block, sp.stats[0][n].encoded_bytes);
  // 10gbe, 4 nodes: the sizes (3 hops of 8 bytes), then the largest block (3 hops); 1.25e9 B/s
  EXPECT_DOUBLE_EQ(3 * 8 / 1.25e9 + 3 * 20e-6 + 3 * double(max_block) / 1.25e9 + 3 * 20e-6,
                   sp.stats[0][0].modeled_comm.configured);
  // 1gbe (preset 0): 1.25e8 B/s, 50 us
  EXPECT_DOUBLE_EQ(3 * 8 / 1.25e8 + 3 * 50e-6 + 3 * double(max_block) / 1.25e8 + 3 * 50e-6,
                   sp.stats[0][0].modeled_comm.preset[0]);
  nlohmann::json j;
  sp.stats[0][0].to_json(j);
  EXPECT_EQ(sp.stats[0][0].k_selected, j["pairs"].get<int64_t>());
  EXPECT_EQ(0.99, j["rho"].get<double>());
  EXPECT_EQ("10gbe", j["network"]);
  EXPECT_EQ(sp.stats[0][0].modeled_comm.configured, j["modeled_comm_s"]["10gbe"].get<double>());
  EXPECT_TRUE(j["modeled_comm_s"].contains("ib100"));
  EXPECT_TRUE(j["modeled_comm_s"].contains("1gbe"));
  EXPECT_FALSE(j.contains("divergence"));
}

}  // namespace
}  // namespace sl
