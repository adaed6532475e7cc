// The methods after the paper (BEYOND.md) through make_strategy + SimulatedCluster,
// against the plain references of reference_methods.h, and their byte counts and modeled time.
#include <gtest/gtest.h>

#include <cstring>

#include "distributed/dct.h"
#include "distributed/demo_exchange.h"
#include "distributed/distributed_strategy.h"
#include "distributed/simulated_cluster.h"
#include "distributed/wire_bytes.h"
#include "reference_methods.h"
#include "toy_training.h"

namespace sl {
namespace {

std::vector<TensorView> views_of(const std::vector<ref::Tensor2>& layout) {
  std::vector<TensorView> v;
  for (const ref::Tensor2& t : layout) v.push_back({t.off, t.n, t.m});
  return v;
}

ref::Vec grad_of(int node, int step, size_t P) {
  return ref::gradient_like(31, node * 100 + step, P);
}

// Runs `steps` exchanges of cfg on N simulated nodes: U[step][node], stats, final state.
struct ClusterRun {
  std::vector<std::vector<ref::Vec>> U;
  std::vector<std::vector<StepStats>> stats;
  std::vector<std::vector<ref::Vec>> state;  // [node][buffer]
};

ClusterRun run(int N, const DistributedConfig& cfg, size_t P,
               const std::vector<ref::Tensor2>& layout, int steps,
               const std::function<ref::Vec(int, int)>& grad = nullptr) {
  ClusterRun out;
  out.U.assign(steps, std::vector<ref::Vec>(N));
  out.stats.assign(steps, std::vector<StepStats>(N));
  out.state.resize(N);
  SimulatedCluster::run(N, [&](Communicator& c) {
    auto s = make_strategy(cfg, c, P, views_of(layout));
    for (int t = 0; t < steps; ++t) {
      ref::Vec g = grad ? grad(c.rank(), t) : grad_of(c.rank(), t, P);
      s->exchange(g.data(), t, out.stats[t][c.rank()]);
      out.U[t][c.rank()] = g;
    }
    for (const StateBuffer& b : s->state())
      out.state[c.rank()].emplace_back(b.data, b.data + b.size);
  });
  return out;
}

DistributedConfig cfg(const nlohmann::json& j) { return DistributedConfig::from_json(j, "test"); }

// ------------------------------------------------------------------------------ PowerSGD

// Two compressed matrices, a vector and a 3 x 3 matrix that r = 2 cannot shrink (dense), and
// an alignment gap of 8 floats between the first two tensors.
const std::vector<ref::Tensor2> kPowerLayout = {
    {0, 12, 10}, {128, 7, 1}, {135, 3, 3}, {144, 20, 8}};
constexpr size_t kPowerP = 304;

TEST(PowerSgd, MatchesTheReferenceBitForBit) {
  for (int N = 1; N <= 4; ++N)
    for (int rank : {1, 2})
      for (bool warm : {true, false}) {
        const DistributedConfig c = cfg(
            {{"method", "powersgd"},
             {"powersgd",
              {{"rank", rank}, {"warmup_steps", 1}, {"warm_start", warm}, {"random_seed", 7}}}});
        const int steps = 4;
        const ClusterRun got = run(N, c, kPowerP, kPowerLayout, steps);
        ref::PowerSgdRef want(kPowerLayout, rank, 1, warm, 7, N, kPowerP);
        for (int t = 0; t < steps; ++t) {
          std::vector<ref::Vec> g(N);
          for (int n = 0; n < N; ++n) g[n] = grad_of(n, t, kPowerP);
          const auto U = want.step(g);
          for (int n = 0; n < N; ++n) {
            ASSERT_EQ(0u, ref::mismatches(U[n], got.U[t][n]))
                << "N=" << N << " r=" << rank << " warm=" << warm << " step " << t << " node " << n;
            EXPECT_EQ(t >= 1, got.stats[t][n].lowrank_compressed);
          }
        }
        for (int n = 0; n < N; ++n) {
          ASSERT_EQ(2u, got.state[n].size());
          EXPECT_EQ(0u, ref::mismatches(want.E[n], got.state[n][0])) << "E_n, node " << n;
          ref::Vec q;
          for (const ref::Vec& x : want.Q) q.insert(q.end(), x.begin(), x.end());
          EXPECT_EQ(0u, ref::mismatches(q, got.state[n][1])) << "Q, node " << n;
        }
      }
}

TEST(PowerSgd, WarmUpIsDenseBitForBit) {
  const DistributedConfig p = cfg({{"method", "powersgd"}, {"powersgd", {{"warmup_steps", 3}}}});
  const DistributedConfig d = cfg({{"method", "dense"}});
  const ClusterRun a = run(3, p, kPowerP, kPowerLayout, 3), b = run(3, d, kPowerP, kPowerLayout, 3);
  for (int t = 0; t < 3; ++t)
    for (int n = 0; n < 3; ++n) {
      EXPECT_EQ(0u, ref::mismatches(b.U[t][n], a.U[t][n]));
      EXPECT_EQ(b.stats[t][n].bytes_sent, a.stats[t][n].bytes_sent);
      EXPECT_FALSE(a.stats[t][n].lowrank_compressed);
    }
}

TEST(PowerSgd, AVanishingGradientGivesAZeroUpdateNotNaN) {
  const DistributedConfig p = cfg({{"method", "powersgd"}, {"powersgd", {{"warmup_steps", 0}}}});
  const ClusterRun a =
      run(2, p, kPowerP, kPowerLayout, 2, [](int, int) { return ref::Vec(kPowerP, 0.0f); });
  for (int t = 0; t < 2; ++t)
    for (float x : a.U[t][1]) ASSERT_EQ(0.0f, x);
}

TEST(PowerSgd, BytesAndModeledTimeFollowTheFactorSizes) {
  // Every all-reduce's size divisible by N = 1, 2, 4, so the per-node counts are exact.
  const std::vector<ref::Tensor2> layout = {{0, 16, 12}, {192, 8, 1}, {200, 4, 4}, {216, 24, 8}};
  const size_t P = 408, r = 2;
  size_t pf = 0, qf = 0, dense = 0;  // the reference's own count: r (n + m) < n m compresses
  for (const ref::Tensor2& w : layout)
    if (r * (w.n + w.m) < w.n * w.m) {
      pf += r * w.n;
      qf += r * w.m;
    } else {
      dense += w.n * w.m;
    }
  ASSERT_EQ(120u, pf + qf);
  ASSERT_EQ(24u, dense);
  const DistributedConfig c =
      cfg({{"method", "powersgd"}, {"powersgd", {{"rank", 2}, {"warmup_steps", 1}}}});
  const RingNetworkModel net = RingNetworkModel::preset("10gbe");
  for (int N : {1, 2, 4}) {
    const ClusterRun a = run(N, c, P, layout, 2);
    for (int n = 0; n < N; ++n) {
      const StepStats& w = a.stats[0][n];  // the dense warm-up step: all P floats
      EXPECT_EQ(double(w.bytes_sent), 2.0 * (N - 1) / N * 4 * P);
      EXPECT_EQ(double(w.bytes_sent), w.analytic_bytes_sent);
      const StepStats& s = a.stats[1][n];
      EXPECT_EQ(double(s.bytes_sent), 2.0 * (N - 1) / N * 4 * (pf + qf + dense)) << "N=" << N;
      EXPECT_EQ(double(s.bytes_sent), s.analytic_bytes_sent);
      EXPECT_EQ(s.bytes_received, s.bytes_sent);
      EXPECT_EQ(int64_t(pf + qf), s.lowrank_floats);
      EXPECT_EQ(int64_t(dense), s.dense_floats);
      // three ring all-reduces: the dense tensors, the P factors, the Q factors
      EXPECT_DOUBLE_EQ(net.allreduce_seconds(4.0 * dense, N) + net.allreduce_seconds(4.0 * pf, N) +
                           net.allreduce_seconds(4.0 * qf, N),
                       s.modeled_comm.configured);
      nlohmann::json j;
      s.to_json(j);
      EXPECT_EQ(2, j["powersgd_rank"]);
      EXPECT_TRUE(j["compressed"].get<bool>());
      EXPECT_TRUE(j.contains("compress_s"));
      EXPECT_FALSE(j.contains("rho"));
    }
  }
}

// -------------------------------------------------------------------------------- DiLoCo

// Inner steps on node n move theta_n by a node-specific amount; after_update averages and
// takes the outer step every K steps.
std::vector<std::vector<ref::Vec>> diloco_run(int N, const DistributedConfig& c, size_t P,
                                              int steps, std::vector<std::vector<StepStats>>* st) {
  std::vector<std::vector<ref::Vec>> theta(steps, std::vector<ref::Vec>(N));
  if (st) st->assign(steps, std::vector<StepStats>(N));
  SimulatedCluster::run(N, [&](Communicator& comm) {
    auto s = make_strategy(c, comm, P);
    ref::Vec params = ref::gradient_like(41, 0, P), g;
    s->start(params.data());
    for (int t = 0; t < steps; ++t) {
      StepStats stats;
      g = grad_of(comm.rank(), t, P);
      s->exchange(g.data(), t, stats);  // U_n = g_n, nothing sent
      for (size_t i = 0; i < P; ++i) params[i] -= 0.01f * g[i];
      s->after_update(params.data(), P, {}, t, stats);
      theta[t][comm.rank()] = params;
      if (st) (*st)[t][comm.rank()] = stats;
    }
  });
  return theta;
}

TEST(DiLoCo, OuterStepMatchesTheReferenceBitForBit) {
  const size_t P = 1001;
  const int K = 3, steps = 9;
  struct Knobs {
    double lr, mu;
    bool nesterov;
  };
  for (const Knobs& k : {Knobs{0.7, 0.9, true}, Knobs{0.7, 0.9, false}, Knobs{0.5, 0.0, true}})
    for (int N = 1; N <= 4; ++N) {
      const DistributedConfig c = cfg(
          {{"method", "diloco"},
           {"average_every", K},
           {"diloco", {{"outer_lr", k.lr}, {"outer_momentum", k.mu}, {"nesterov", k.nesterov}}}});
      std::vector<std::vector<StepStats>> st;
      const auto got = diloco_run(N, c, P, steps, &st);
      std::vector<ref::Vec> theta(N, ref::gradient_like(41, 0, P));
      ref::Vec anchor = theta[0], b(P, 0.0f);
      for (int t = 0; t < steps; ++t) {
        for (int n = 0; n < N; ++n) {
          const ref::Vec g = grad_of(n, t, P);
          for (size_t i = 0; i < P; ++i) theta[n][i] -= 0.01f * g[i];
        }
        double norm = -1;
        if ((t + 1) % K == 0)
          theta.assign(
              N, ref::diloco_outer(theta, anchor, b, float(k.lr), float(k.mu), k.nesterov, &norm));
        for (int n = 0; n < N; ++n) {
          ASSERT_EQ(0u, ref::mismatches(theta[n], got[t][n]))
              << "lr " << k.lr << " mu " << k.mu << " N=" << N << " step " << t << " node " << n;
          EXPECT_EQ(norm, st[t][n].outer_delta_norm);
          EXPECT_EQ((t + 1) % K == 0, st[t][n].averaged);
        }
      }
    }
}

TEST(DiLoCo, SendsOneDenseAllReduceEveryHStepsAndNothingBetween) {
  const size_t P = 1200;
  const DistributedConfig c = cfg({{"method", "diloco"}, {"average_every", 4}});
  const RingNetworkModel net = RingNetworkModel::preset("10gbe");
  for (int N : {2, 4}) {
    std::vector<std::vector<StepStats>> st;
    diloco_run(N, c, P, 8, &st);
    for (int t = 0; t < 8; ++t) {
      const StepStats& s = st[t][1];
      if ((t + 1) % 4 != 0) {
        EXPECT_EQ(0u, s.bytes_sent + s.control_bytes_sent) << t;
        EXPECT_EQ(0.0, s.modeled_comm.configured) << t;
        continue;
      }
      EXPECT_EQ(double(s.bytes_sent), analytic_allreduce_bytes(P, N));
      EXPECT_EQ(double(s.bytes_sent), s.analytic_bytes_sent);
      // theta's all-reduce, and the divergence scalar (as fedavg's averaging step)
      EXPECT_DOUBLE_EQ(net.allreduce_seconds(4.0 * P, N) + net.allreduce_seconds(8.0, N),
                       s.modeled_comm.configured);
    }
  }
}

TEST(DiLoCo, OuterLrOneWithoutMomentumIsFedAvgBitForBit) {
  // The toy model trained with Adam for 25 steps, averaging / outer steps every 5.
  const DistributedConfig fed = cfg({{"method", "fedavg"}, {"average_every", 5}});
  for (bool nesterov : {true, false}) {
    const DistributedConfig dil =
        cfg({{"method", "diloco"},
             {"average_every", 5},
             {"diloco", {{"outer_lr", 1.0}, {"outer_momentum", 0.0}, {"nesterov", nesterov}}}});
    for (int N : {2, 4}) {
      std::vector<toy::Run> a(N), b(N);
      SimulatedCluster::run(N, [&](Communicator& c) { a[c.rank()] = toy::train(c, fed); });
      SimulatedCluster::run(N, [&](Communicator& c) { b[c.rank()] = toy::train(c, dil); });
      for (int n = 0; n < N; ++n) {
        ASSERT_EQ(0, std::memcmp(a[n].params.data(), b[n].params.data(), toy::kParams * 4));
        ASSERT_EQ(a[n].losses, b[n].losses);
        for (size_t t = 0; t < a[n].stats.size(); ++t) {
          EXPECT_EQ(a[n].stats[t].bytes_sent, b[n].stats[t].bytes_sent);
          EXPECT_EQ(a[n].stats[t].divergence, b[n].stats[t].divergence);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------- DeMo

TEST(Dct, ChunkLengthIsTheLargestDivisorNotAboveS) {
  for (size_t dim : {1, 2, 7, 50, 64, 67, 130, 192, 256, 320, 2000, 4099})
    for (size_t s : {1, 4, 64})
      EXPECT_EQ(ref::demo_chunk(dim, s), dct_chunk_length(dim, s)) << dim << " " << s;
  EXPECT_EQ(50u, dct_chunk_length(2000, 64));
  EXPECT_EQ(1u, dct_chunk_length(67, 64));  // a prime above s: chunks of 1 along it
}

// The separable float transform against the O(h^2 w^2) definition in long double. They sum
// in different orders (and the fast one in float), so they agree to a few float ulps of the
// block's scale, not bit for bit: |error| <= 2e-6 ||x||_2 on every coefficient (measured
// worst here 9e-8 ||x||_2).
TEST(Dct, MatchesTheDefinitionAndInverts) {
  const std::vector<std::pair<size_t, size_t>> sizes = {{1, 1}, {1, 7},   {5, 1},  {4, 4},
                                                        {8, 3}, {50, 64}, {64, 64}};
  for (auto [h, w] : sizes) {
    const DctBasis bh(h), bw(w);
    const ref::Vec x = ref::gradient_like(51, h * 100 + w, h * w);
    ref::Vec X(h * w), back(h * w), scratch(h * w);
    dct2(bh, bw, x.data(), X.data(), scratch.data());
    idct2(bh, bw, X.data(), back.data(), scratch.data());
    const ref::Vec Xd = ref::dct_by_definition(h, w, x);
    double norm = 0, normX = 0;
    for (size_t i = 0; i < x.size(); ++i) norm += double(x[i]) * x[i], normX += double(X[i]) * X[i];
    norm = std::sqrt(norm);
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_NEAR(Xd[i], X[i], 2e-6 * norm) << h << "x" << w << " coefficient " << i;
      ASSERT_NEAR(x[i], back[i], 2e-6 * norm) << h << "x" << w << " element " << i;
    }
    EXPECT_NEAR(norm, std::sqrt(normX), 1e-5 * norm) << "orthonormal: ||X|| = ||x||";
    const ref::Vec xd = ref::idct_by_definition(h, w, X);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(xd[i], back[i], 2e-6 * norm);
  }
}

// Matrices with chunks of 4 x 4, a vector (chunks of 2: 10's largest divisor <= 4), a 5 x 7
// matrix (both primes above 4: chunks of 1, k clamped to 1), and an alignment gap.
const std::vector<ref::Tensor2> kDemoLayout = {
    {0, 8, 12}, {100, 10, 1}, {110, 5, 7}, {145, 16, 16}};
constexpr size_t kDemoP = 404;

ref::ChunkTransform lib_transform(bool inverse) {
  return [inverse](size_t h, size_t w, const ref::Vec& in) {
    const DctBasis bh(h), bw(w);
    ref::Vec out(h * w), scratch(h * w);
    (inverse ? idct2 : dct2)(bh, bw, in.data(), out.data(), scratch.data());
    return out;
  };
}

DistributedConfig demo_cfg(double beta, int chunk, int topk) {
  return cfg({{"method", "demo"}, {"demo", {{"beta", beta}, {"chunk", chunk}, {"topk", topk}}}});
}

// The method's logic (momentum, chunking, layout, top-k, sums, mean) against the reference,
// which uses the library's chunk transform (tested against the definition above).
TEST(DeMo, MatchesTheReferenceBitForBit) {
  for (int N = 1; N <= 4; ++N)
    for (int k : {1, 3, 16}) {
      const int steps = 3;
      const ClusterRun got = run(N, demo_cfg(0.9, 4, k), kDemoP, kDemoLayout, steps);
      ref::DeMoRef want{kDemoLayout,         0.9f, 4, size_t(k), lib_transform(false),
                        lib_transform(true), {}};
      for (int t = 0; t < steps; ++t) {
        std::vector<ref::Vec> g(N);
        for (int n = 0; n < N; ++n) g[n] = grad_of(n, t, kDemoP);
        const auto U = want.step(g);
        for (int n = 0; n < N; ++n)
          ASSERT_EQ(0u, ref::mismatches(U[n], got.U[t][n]))
              << "N=" << N << " k=" << k << " step " << t << " node " << n;
      }
      for (int n = 0; n < N; ++n)
        EXPECT_EQ(0u, ref::mismatches(want.mom[n], got.state[n][0])) << "momentum, node " << n;
    }
}

// The whole reference with the DCT by its definition instead: the same update up to the
// transform's rounding (Dct.MatchesTheDefinitionAndInverts), as long as no top-k choice sits
// on a near-tie (none does for these inputs).
TEST(DeMo, MatchesTheReferenceWithTheDefinitionDctWithinRounding) {
  const int N = 3, steps = 3;
  const ClusterRun got = run(N, demo_cfg(0.999, 4, 3), kDemoP, kDemoLayout, steps);
  ref::DeMoRef want{kDemoLayout, 0.999f, 4, 3, ref::dct_by_definition, ref::idct_by_definition, {}};
  for (int t = 0; t < steps; ++t) {
    std::vector<ref::Vec> g(N);
    double scale = 0;
    for (int n = 0; n < N; ++n) {
      g[n] = grad_of(n, t, kDemoP);
      for (float x : g[n]) scale = std::max(scale, double(std::fabs(x)));
    }
    const auto U = want.step(g);
    for (size_t i = 0; i < kDemoP; ++i) ASSERT_NEAR(U[0][i], got.U[t][0][i], 1e-5 * scale) << i;
  }
}

TEST(DeMo, ChunksOfOneSendingEverythingIsTheDenseMean) {
  const ClusterRun d = run(4, cfg({{"method", "dense"}}), kDemoP, kDemoLayout, 2);
  const ClusterRun m = run(4, demo_cfg(0.5, 1, 1), kDemoP, kDemoLayout, 2);
  for (int t = 0; t < 2; ++t)
    for (int n = 0; n < 4; ++n)
      for (const ref::Tensor2& w : kDemoLayout)
        for (size_t i = w.off; i < w.off + w.n * w.m; ++i)
          ASSERT_EQ(d.U[t][n][i] / 4.0f, m.U[t][n][i]) << "step " << t << " element " << i;
}

TEST(DeMo, BytesAndModeledTimeFollowThePairCount) {
  // The reference's own count: per chunk min(k, h w) pairs of 8 bytes (pairs32).
  const size_t k = 3;
  size_t pairs = 0, chunks = 0;
  ref::DeMoRef shape{kDemoLayout, 0, 4, k, nullptr, nullptr, {}};
  shape.for_each_chunk([&](const ref::Tensor2&, size_t h, size_t w, size_t, size_t, size_t) {
    pairs += std::min(k, h * w);
    ++chunks;
  });
  ASSERT_EQ(6u + 5u + 35u + 16u, chunks);
  for (int N = 1; N <= 4; ++N) {
    const ClusterRun a = run(N, demo_cfg(0.999, 4, int(k)), kDemoP, kDemoLayout, 2);
    for (int n = 0; n < N; ++n) {
      const StepStats& s = a.stats[1][n];
      EXPECT_EQ(int64_t(pairs), s.dct_pairs);
      EXPECT_EQ(int64_t(chunks), s.dct_chunks);
      EXPECT_EQ(int64_t(8 * pairs), s.encoded_bytes);
      EXPECT_EQ(uint64_t((N - 1) * 8 * pairs), s.bytes_sent);
      EXPECT_EQ(double(s.bytes_sent), s.analytic_bytes_sent);
      EXPECT_EQ(uint64_t((N - 1) * 8 * pairs), s.bytes_received);  // equal blocks
      // the block sizes (8 bytes per node), then the equal blocks: 10gbe, 1.25e9 B/s, 20 us
      EXPECT_DOUBLE_EQ((N - 1) * (8.0 + 8.0 * pairs) / 1.25e9 + 2 * (N - 1) * 20e-6,
                       s.modeled_comm.configured);
      nlohmann::json j;
      s.to_json(j);
      EXPECT_EQ(int64_t(pairs), j["pairs"].get<int64_t>());
      EXPECT_FALSE(j.contains("rho"));
    }
  }
}

TEST(DeMo, TopKOfAChunkPrefersNaNThenMagnitudeThenTheLowerIndex) {
  const float nan = std::nanf("");
  const ref::Vec X = {1.0f, -3.0f, 3.0f, nan, 0.5f, -3.0f};
  std::vector<uint64_t> keys;
  std::vector<uint32_t> out;
  top_k_of_chunk(X.data(), X.size(), 3, keys, out);
  EXPECT_EQ((std::vector<uint32_t>{1, 2, 3}), out);
  top_k_of_chunk(X.data(), X.size(), 2, keys, out);
  EXPECT_EQ((std::vector<uint32_t>{1, 3}), out);  // of the two -3s, the lower index
  top_k_of_chunk(X.data(), X.size(), 10, keys, out);
  EXPECT_EQ(6u, out.size());
}

}  // namespace
}  // namespace sl
