// Cases the per-kernel tests do not reach: empty sizes, more than 2^31 elements, bad ids,
// a padding id other than 0, and several host threads sharing the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "autograd/graph.h"
#include "autograd/ops.h"
#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

using CudaEdge = CudaVsCpu;

// Every kernel entry point with a zero size: no launch (a zero-block grid is a launch
// error), nothing written, and the device stays clean (TearDown synchronises).
TEST_F(CudaEdge, ZeroSizesLaunchNothing) {
  Pair y = random_pair(8, 1);
  const std::vector<float> before = y.host(1);
  float* p = y.f(1);
  int32_t ids[1] = {0};
  Tensor dids = Tensor::from_host_ids(gpu(), Shape{1}, {0});
  Device& g = gpu();
  g.fill(0, 1.0f, p);
  g.axpby(0, 1.0f, p, 1.0f, p);
  g.mul(0, p, p, p, true);
  g.unary(Unary::Tanh, 0, p, p);
  g.unary_backward(Unary::Tanh, 0, p, p, p, p);
  g.reduce_sum(0, p, p + 1, true);
  g.broadcast_scalar_acc(0, 1.0f, p, p);
  g.add_bias(0, 4, p, p, p);
  g.sum_rows_acc(0, 4, p, p);
  g.mul_rows(0, 4, p, p, p, true);
  g.copy_block(0, 4, p, 4, p, 4, true);
  g.embedding(0, 4, p, dids.i32(), p);
  g.embedding_backward(0, 4, p, dids.i32(), p);
  g.softmax(0, 4, p, p);
  g.log_softmax(0, 4, p, p);
  g.layer_norm(0, 4, 1e-5f, p, p, p, p, p, p);
  g.cross_entropy(0, 4, p, dids.i32(), -1, 0.1f, p, p);
  g.cross_entropy_backward(0, 4, p, dids.i32(), -1, 0.1f, p, p);
  g.gru_cell(0, 4, p, p, p, p, p);
  g.dropout_mask(0, 0.1f, 1, 2, p);
  g.adam_update(0, 1e-3f, 0.9f, 0.98f, 1e-8f, p, p, p, p);
  g.gemm(false, false, 0, 4, 4, 1.0f, p, p, 0.0f, p);
  g.gemm_batched(false, false, 2, 2, 2, 1.0f, p, 4, p, 4, 0.0f, p, 4, 0);
  EXPECT_EQ(g.sum_squares(0, p), 0.0);
  (void)ids;
  // reduce_sum of nothing is 0 (accumulated: unchanged).
  std::vector<float> want = before;
  cuda_test::expect_same_bits(want, y.host(1), "untouched by empty calls");
}

// Index arithmetic past 2^31 elements (size_t loops, int64 offsets): fill, axpby and the
// reductions on 2^31 + 1000 floats. Needs ~17 GB of device memory; skips when it is short.
TEST_F(CudaEdge, MoreThanTwoToThe31Elements) {
  const size_t n = (size_t(1) << 31) + 1000;
  void* a = nullptr;
  void* b = nullptr;
  try {
    a = gpu().alloc(n * sizeof(float));
    b = gpu().alloc(n * sizeof(float));
  } catch (const std::runtime_error& e) {
    if (a) gpu().release(a);
    GTEST_SKIP() << "not enough device memory for 2 x 8.6 GB: " << e.what();
  }
  float* x = static_cast<float*>(a);
  float* y = static_cast<float*>(b);
  gpu().fill(n, 0.5f, x);
  gpu().fill(n, 0.0f, y);
  gpu().axpby(n, 2.0f, x, 1.0f, y);  // y = 1 everywhere, the tail included
  std::vector<float> tail(16);
  gpu().to_host(tail.data(), y + n - 16, 16 * sizeof(float));
  for (float t : tail) EXPECT_EQ(t, 1.0f);
  EXPECT_NEAR(gpu().sum_squares(n, y), double(n), 1e-6 * double(n));
  Tensor s = Tensor::zeros(gpu(), Shape{1});
  gpu().reduce_sum(n, y, s.f32(), false);
  EXPECT_NEAR(s.to_host()[0], double(n), 1e-5 * double(n));
  gpu().release(a);
  gpu().release(b);
  cuda().empty_cache();
}

// An out-of-range embedding id is refused on the host (the CPU backend's check, from the
// range recorded at upload), before any kernel could fault on it.
TEST_F(CudaEdge, BadEmbeddingIdsThrowBeforeAnyKernel) {
  for (int side = 0; side < 2; ++side) {
    Graph graph(dev(side), false, 1);
    Var table = graph.constant(Tensor::from_host(dev(side), Shape{5, 3}, random_values(15, 2)));
    for (int32_t bad : {5, -1, 1 << 30}) {
      Tensor ids = Tensor::from_host_ids(dev(side), Shape{3}, {0, bad, 2});
      EXPECT_THROW(ops::embedding(table, ids), std::out_of_range) << "side " << side << " id " << bad;
    }
    Tensor ok = Tensor::from_host_ids(dev(side), Shape{3}, {0, 4, 2});
    EXPECT_NO_THROW(ops::embedding(table, ok));
    // Ids whose upload range is unknown (written on the device) are copied back and checked.
    Tensor copied = Tensor::empty(dev(side), Shape{3}, DType::I32);
    copied.copy_from(Tensor::from_host_ids(dev(side), Shape{3}, {0, 7, 2}));
    EXPECT_THROW(ops::embedding(table, copied), std::out_of_range) << "side " << side;
  }
}

// Padding id other than 0, with 0 a real target in the same batch.
TEST_F(CudaEdge, CrossEntropyWithNonZeroPadId) {
  const int R = 9, V = 301, pad = 3;
  std::vector<int32_t> t = random_ids(R, 40, V);
  t[0] = 0;
  t[2] = pad;
  t[7] = pad;
  for (float ls : {0.0f, 0.1f}) {
    Pair logits = random_pair(size_t(R) * V, 41, -6.0f, 6.0f), targets = pair_ids(t);
    Pair loss = random_pair(R, 42), probs = random_pair(size_t(R) * V, 43);
    Pair dloss = random_pair(R, 44), dlogits = random_pair(size_t(R) * V, 45);
    on_both([&](Device& d, int s) {
      d.cross_entropy(R, V, logits.f(s), targets.i(s), pad, ls, loss.f(s), probs.f(s));
      d.cross_entropy_backward(R, V, probs.f(s), targets.i(s), pad, ls, dloss.f(s), dlogits.f(s));
    });
    EXPECT_EQ(loss.host(1)[2], 0.0f);
    expect_close(loss, "loss pad=3 ls=" + std::to_string(ls), 1e-4f, 1e-5f);
    expect_close(probs, "probs pad=3", 1e-4f, 1e-8f);
    expect_close(dlogits, "dlogits pad=3", 1e-4f, 1e-6f);
  }
}

// Smoothing 0 and a -inf logit (a fully masked class): finite on both backends.
TEST_F(CudaEdge, CrossEntropyMinusInfLogitWithoutSmoothing) {
  const int R = 2, V = 40;
  std::vector<float> x = random_values(size_t(R) * V, 46, -3.0f, 3.0f);
  x[5] = -INFINITY;
  x[V + 39] = -INFINITY;
  Pair logits = pair(x), targets = pair_ids({1, 2}), loss = random_pair(R, 47);
  Pair probs = random_pair(size_t(R) * V, 48);
  on_both([&](Device& d, int s) {
    d.cross_entropy(R, V, logits.f(s), targets.i(s), -1, 0.0f, loss.f(s), probs.f(s));
  });
  for (float l : loss.host(1)) EXPECT_TRUE(std::isfinite(l)) << l;
  expect_close(loss, "loss with -inf logit", 1e-5f, 1e-6f);
}

// Simulated nodes are threads sharing the one device: concurrent calls from 4 threads give
// each thread the CPU backend's results (the allocator is locked; kernels are ordered on the
// legacy default stream).
TEST_F(CudaEdge, SeveralHostThreadsShareTheDevice) {
  const int threads = 4;
  const size_t n = 200003;
  std::vector<std::vector<float>> got(threads), want(threads);
  std::vector<std::string> errors(threads);
  auto work = [&](Device& d, int k, std::vector<float>* out) {
    std::vector<float> h = random_values(n, 50 + k);
    Tensor x = Tensor::from_host(d, Shape{int64_t(n)}, h);
    Tensor y = Tensor::from_host(d, Shape{int64_t(n)}, random_values(n, 60 + k));
    for (int rep = 0; rep < 20; ++rep) {
      d.axpby(n, 0.5f, x.f32(), 0.75f, y.f32());
      d.unary(Unary::Tanh, n, y.f32(), y.f32());
      Tensor tmp = Tensor::empty(d, Shape{int64_t(n)});  // allocator traffic from every thread
      d.copy(tmp.f32(), y.f32(), n * sizeof(float));
      d.mul(n, tmp.f32(), x.f32(), y.f32(), true);
    }
    *out = y.to_host();
  };
  for (int k = 0; k < threads; ++k) work(dev(0), k, &want[k]);
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      try {
        work(gpu(), k, &got[k]);
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    });
  for (auto& t : pool) t.join();
  for (int k = 0; k < threads; ++k) {
    EXPECT_EQ(errors[k], "") << "thread " << k;
    cuda_test::expect_close(want[k], got[k], 1e-4f, 1e-6f, "thread " + std::to_string(k));
  }
}

}  // namespace
}  // namespace sl::cuda_test
