// Device-resident exchange (lib/tensor/cuda/sparsify.*, lib/distributed/device_exchange.*)
// against the CPU path on the same gradients: bit-identical S_n, E_n, tau and U_n. Skips
// without a GPU (fails under SL_REQUIRE_CUDA=1); the index arithmetic is checked without one
// in tests/distributed/device_exchange_plan_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "distributed/device_exchange.h"
#include "distributed/distributed_strategy.h"
#include "distributed/drop_ratio_schedule.h"
#include "distributed/simulated_cluster.h"
#include "distributed/top_k_compressor.h"
#include "tensor/cuda/sparsify.h"

namespace sl::cuda_test {
namespace {

using CudaSparsify = CudaVsCpu;

void expect_pairs_equal(const std::vector<SparsePair>& a, const std::vector<SparsePair>& b,
                        const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t j = 0; j < a.size(); ++j) {
    ASSERT_EQ(a[j].index, b[j].index) << what << " pair " << j;
    ASSERT_EQ(0, std::memcmp(&a[j].value, &b[j].value, 4)) << what << " pair " << j;
  }
}

TEST_F(CudaSparsify, CompressMatchesTopKCompressorBitwise) {
  struct Case {
    ThresholdMode mode;
    size_t P, sample;
    double rho;
  };
  const Case cases[] = {{ThresholdMode::Exact, 1, 0, 0.99},        {ThresholdMode::Exact, 1025, 0, 0.99},
                        {ThresholdMode::Exact, 3000017, 0, 0.99},  {ThresholdMode::Exact, 100000, 0, 0.5},
                        {ThresholdMode::Sampled, 3000017, 100000, 0.99},
                        {ThresholdMode::Sampled, 5000, 100000, 0.99}};
  for (const Case& c : cases) {
    const std::string what = "P=" + std::to_string(c.P) + " rho=" + std::to_string(c.rho) +
                             (c.mode == ThresholdMode::Exact ? " exact" : " sampled");
    TopKCompressor cpu(c.mode, c.sample ? c.sample : 100000);
    ErrorFeedback E(c.P);
    std::vector<SparsePair> S;
    Tensor dE = Tensor::zeros(gpu(), Shape{int64_t(c.P)});
    Tensor dpairs = Tensor::empty(gpu(), Shape{int64_t(2 * c.P)});
    for (int step = 0; step < 3; ++step) {
      std::vector<float> g = random_values(c.P, 100 + step);
      for (size_t i = 0; i < c.P; i += 7) g[i] *= 30.0f;
      Tensor dg = Tensor::from_host(gpu(), Shape{int64_t(c.P)}, g);
      const CompressResult r = cpu.compress(g.data(), E, c.rho, S);
      const uint64_t m = c.mode == ThresholdMode::Exact ? 0 : std::min<uint64_t>(c.sample, c.P);
      const uint64_t k = m == 0 || m >= c.P ? keep_count(c.P, c.rho) : keep_count(m, c.rho);
      auto* pairs = reinterpret_cast<sparsify::DevicePair*>(dpairs.f32());
      const sparsify::DeviceSelection sel =
          sparsify::compress(gpu(), dg.f32(), dE.f32(), c.P, k, m, pairs);
      std::vector<SparsePair> got(sel.k_selected);
      gpu().to_host(got.data(), pairs, got.size() * sizeof(SparsePair));
      float tau;
      std::memcpy(&tau, &sel.tau_key, 4);
      EXPECT_EQ(r.tau, tau) << what;
      expect_pairs_equal(S, got, what + " S_n step " + std::to_string(step));
      cuda_test::expect_same_bits(std::vector<float>(E.data(), E.data() + c.P), dE.to_host(),
                                  what + " E_n");
    }
  }
}

// The whole distributed step, CPU strategy vs device strategy, 3 simulated nodes, every
// method and combiner: U_n bit-identical on every node and step.
TEST_F(CudaSparsify, DeviceStrategyMatchesCpuStrategyBitwise) {
  const size_t P = 200003;
  const int N = 3;
  struct M {
    Method method;
    CombinerKind combiner;
    ThresholdMode mode;
  };
  const M methods[] = {{Method::Dense, CombinerKind::None, ThresholdMode::Exact},
                       {Method::FedAvg, CombinerKind::None, ThresholdMode::Exact},
                       {Method::Sparse, CombinerKind::None, ThresholdMode::Exact},
                       {Method::Sparse, CombinerKind::Sum, ThresholdMode::Sampled},
                       {Method::Sparse, CombinerKind::Partial, ThresholdMode::Exact},
                       {Method::Sparse, CombinerKind::Error, ThresholdMode::Exact}};
  for (const M& mm : methods) {
    DistributedConfig cfg;
    cfg.method = mm.method;
    cfg.combiner = mm.combiner;
    cfg.threshold = mm.mode;
    cfg.sample_size = 20000;
    cfg.drop_warmup_steps = 2;
    cfg.average_every = 2;
    std::vector<std::vector<float>> cpu_out(N), gpu_out(N);
    std::mutex mu;
    for (int side = 0; side < 2; ++side)
      SimulatedCluster::run(N, [&](Communicator& comm) {
        const int n = comm.rank();
        std::unique_ptr<DistributedStrategy> cs;
        std::unique_ptr<DeviceDistributedStrategy> ds;
        if (side == 0) cs = make_strategy(cfg, comm, P);
        else ds = std::make_unique<DeviceDistributedStrategy>(cfg, comm, P, gpu());
        std::vector<float> params = random_values(P, 7), out;
        Tensor dparams = Tensor::from_host(gpu(), Shape{int64_t(P)}, params);
        for (int step = 0; step < 4; ++step) {
          std::vector<float> grad = random_values(P, 1000 * n + step, -50.0f, 50.0f);
          StepStats stats;
          if (side == 0) {
            cs->normalize_gradient(grad.data(), 1000 + n);
            cs->exchange(grad.data(), step, stats);
            for (size_t i = 0; i < P; ++i) params[i] -= 1e-3f * grad[i];
            cs->after_update(params.data(), P, {}, step, stats);
            out.insert(out.end(), grad.begin(), grad.end());
            out.insert(out.end(), params.begin(), params.end());
          } else {
            Tensor dg = Tensor::from_host(gpu(), Shape{int64_t(P)}, grad);
            ds->normalize_gradient(dg.f32(), 1000 + n);
            ds->exchange(dg.f32(), step, stats);
            const std::vector<float> u = dg.to_host();
            std::vector<float> p = dparams.to_host();
            for (size_t i = 0; i < P; ++i) p[i] -= 1e-3f * u[i];
            dparams = Tensor::from_host(gpu(), Shape{int64_t(P)}, p);
            ds->after_update(dparams.f32(), P, {}, step, stats);
            const std::vector<float> after = dparams.to_host();
            out.insert(out.end(), u.begin(), u.end());
            out.insert(out.end(), after.begin(), after.end());
          }
        }
        std::lock_guard<std::mutex> lock(mu);
        (side == 0 ? cpu_out : gpu_out)[n] = std::move(out);
      });
    for (int n = 0; n < N; ++n)
      cuda_test::expect_same_bits(cpu_out[n], gpu_out[n],
                                  std::string("method ") + std::to_string(int(mm.method)) +
                                      " combiner " + combiner_name(mm.combiner) + " node " +
                                      std::to_string(n));
  }
}

}  // namespace
}  // namespace sl::cuda_test
