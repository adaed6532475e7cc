#include "distributed/averager.h"

#include <gtest/gtest.h>

#include <cstring>

#include "distributed/distributed_strategy.h"
#include "distributed/simulated_cluster.h"
#include "distributed/wire_bytes.h"
#include "reference_methods.h"

namespace sl {
namespace {

struct NodeState {
  ref::Vec params, m, v;
  StepStats stats;
};

std::vector<NodeState> run(int N, size_t P, bool moments, int64_t step, int64_t every) {
  std::vector<NodeState> out(N);
  nlohmann::json j = {{"method", "fedavg"}, {"average_every", every}, {"average_moments", moments}};
  const DistributedConfig cfg = DistributedConfig::from_json(j, "test");
  SimulatedCluster::run(N, [&](Communicator& c) {
    NodeState& s = out[c.rank()];
    s.params = ref::gradient_like(21, c.rank(), P);
    s.m = ref::gradient_like(22, c.rank(), P);
    s.v = ref::gradient_like(23, c.rank(), P);
    auto strategy = make_strategy(cfg, c, P);
    strategy->after_update(s.params.data(), P, {s.m.data(), s.v.data()}, step, s.stats);
  });
  return out;
}

ref::Vec mean_of(const std::vector<ref::Vec>& xs) {
  ref::Vec s = ref::rank_order_sum(xs);
  for (float& x : s) x = x / float(xs.size());
  return s;
}

TEST(Averager, ReplacesParamsByTheMeanAndMeasuresDivergenceBefore) {
  const size_t P = 1200;
  for (int N = 1; N <= 4; ++N)
    for (bool moments : {false, true}) {
      std::vector<ref::Vec> p0(N), m0(N);
      for (int n = 0; n < N; ++n) {
        p0[n] = ref::gradient_like(21, n, P);
        m0[n] = ref::gradient_like(22, n, P);
      }
      const ref::Vec mean = mean_of(p0);
      double div = 0;
      for (int n = 0; n < N; ++n) {
        double d2 = 0;
        for (size_t i = 0; i < P; ++i) d2 += std::pow(double(p0[n][i]) - mean[i], 2);
        div += std::sqrt(d2);
      }
      div /= N;
      const auto got = run(N, P, moments, /*step=*/9, /*every=*/5);
      for (int n = 0; n < N; ++n) {
        const StepStats& s = got[n].stats;
        EXPECT_TRUE(s.averaged);
        EXPECT_NEAR(div, s.divergence, 1e-9 * (1 + div));
        EXPECT_EQ(0.0, s.divergence_after);
        ASSERT_EQ(0, std::memcmp(got[n].params.data(), got[0].params.data(), P * 4));
        EXPECT_EQ(0u, ref::mismatches(mean, got[n].params));
        if (moments) {
          EXPECT_EQ(0u, ref::mismatches(mean_of(m0), got[n].m));
        } else {
          EXPECT_EQ(0u, ref::mismatches(m0[n], got[n].m));
        }
        const int buffers = moments ? 3 : 1;
        EXPECT_EQ(double(s.bytes_sent), buffers * analytic_allreduce_bytes(P, N));
        EXPECT_EQ(s.analytic_bytes_sent, buffers * analytic_allreduce_bytes(P, N));
        EXPECT_EQ(uint64_t(N - 1) * 8, s.control_bytes_sent);  // the divergence scalar
      }
    }
}

TEST(Averager, OnlyEveryKSteps) {
  Averager a(5, false);
  for (int64_t t = 0; t < 20; ++t) EXPECT_EQ(t == 4 || t == 9 || t == 14 || t == 19, a.due(t));
  EXPECT_FALSE(Averager(0, false).due(4));
  const auto got = run(2, 100, false, /*step=*/3, /*every=*/5);
  EXPECT_FALSE(got[0].stats.averaged);
  EXPECT_EQ(0u, got[0].stats.bytes_sent);
  EXPECT_EQ(0u, ref::mismatches(ref::gradient_like(21, 0, 100), got[0].params));
}

}  // namespace
}  // namespace sl
