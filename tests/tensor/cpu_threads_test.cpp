// The CPU kernels' thread pool: every index is run exactly once, nested and concurrent calls
// fall back to serial, and every threaded kernel gives bit-identical results with 1, 2 and 3
// threads (chunks compute exactly what the serial loop does).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "tensor/cpu/cpu_threads.h"
#include "tensor/device.h"
#include "kernel_test_util.h"

namespace sl {
namespace {

struct ThreadsGuard {  // tests leave the process at 1 thread, as they found it
  ~ThreadsGuard() { set_blas_threads(1); }
};

TEST(CpuThreads, EveryIndexRunsExactlyOnce) {
  ThreadsGuard guard;
  for (int threads : {1, 2, 3}) {
    set_blas_threads(threads);
    EXPECT_EQ(cpu::kernel_threads(), threads);
    for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(100000), size_t(1000003)}) {
      for (size_t grain : {size_t(1), size_t(1000), cpu::kElementGrain}) {
        std::vector<std::atomic<int>> hits(n);
        cpu::parallel_for(n, grain, [&](size_t b, size_t e) {
          ASSERT_LE(b, e);
          ASSERT_LE(e, n);
          for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        });
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n " << n << " i " << i;
      }
    }
  }
}

TEST(CpuThreads, NestedAndConcurrentCallsComplete) {
  ThreadsGuard guard;
  set_blas_threads(2);
  std::vector<std::atomic<int>> hits(64 * 1000);
  cpu::parallel_for(64, 1, [&](size_t b, size_t e) {
    for (size_t o = b; o < e; ++o)
      cpu::parallel_for(1000, 1, [&](size_t ib, size_t ie) {  // runs serially inside
        for (size_t i = ib; i < ie; ++i) hits[o * 1000 + i].fetch_add(1);
      });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  // Two threads calling at once: one gets the pool, the other runs serially.
  std::vector<std::atomic<int>> a(500000), b(500000);
  auto fill = [](std::vector<std::atomic<int>>& v) {
    for (int rep = 0; rep < 20; ++rep)
      cpu::parallel_for(v.size(), 1000, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) v[i].fetch_add(1);
      });
  };
  std::thread other([&] { fill(b); });
  fill(a);
  other.join();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(a[i].load() == 20 && b[i].load() == 20);
}

// Runs `kernel` (which writes into the given outputs, starting from the same contents) with
// 1, 2 and 3 threads and expects the same bits each time.
void expect_same_bits(const char* what, std::vector<std::vector<float>> outputs,
                      const std::function<void(std::vector<std::vector<float>>&)>& kernel) {
  ThreadsGuard guard;
  std::vector<std::vector<float>> reference;
  for (int threads : {1, 2, 3}) {
    set_blas_threads(threads);
    auto out = outputs;
    kernel(out);
    if (threads == 1) {
      reference = out;
      continue;
    }
    for (size_t k = 0; k < out.size(); ++k)
      EXPECT_EQ(0, std::memcmp(out[k].data(), reference[k].data(), out[k].size() * sizeof(float)))
          << what << ": output " << k << " differs with " << threads << " threads";
  }
}

TEST(CpuThreads, ThreadedKernelsAreBitIdenticalToSerial) {
  Device& d = cpu_device();
  const int R = 300, C = 1000;  // 300k values: above the element grain, several chunks
  const size_t n = static_cast<size_t>(R) * C;
  const auto x = testing::random_values(n, 1, 3.0f), x2 = testing::random_values(n, 2),
             dy = testing::random_values(n, 3), bias = testing::random_values(C, 4),
             rowv = testing::random_values(R, 5);
  const auto start = testing::random_values(n, 6);
  expect_same_bits("fill/axpby/mul", {start, start}, [&](auto& o) {
    d.fill(n / 2, 0.25f, o[0].data());
    d.axpby(n, 0.5f, x.data(), 0.75f, o[0].data());
    d.axpby(n, 1.5f, x.data(), 1.0f, o[1].data());
    d.mul(n, x.data(), x2.data(), o[1].data(), true);
  });
  expect_same_bits("rows", {start, start, std::vector<float>(C, 0.5f)}, [&](auto& o) {
    d.add_bias(R, C, x.data(), bias.data(), o[0].data());
    d.mul_rows(R, C, x.data(), rowv.data(), o[1].data(), true);
    d.sum_rows_acc(R, C, x.data(), o[2].data());
  });
  expect_same_bits("unary", {start, start, start, start}, [&](auto& o) {
    d.unary(Unary::Tanh, n, x.data(), o[0].data());
    d.unary(Unary::Sigmoid, n, x.data(), o[1].data());
    d.unary(Unary::Relu, n, x.data(), o[2].data());
    d.unary_backward(Unary::Tanh, n, x.data(), o[0].data(), dy.data(), o[3].data());
    d.unary_backward(Unary::Sigmoid, n, x.data(), o[1].data(), dy.data(), o[3].data());
    d.broadcast_scalar_acc(n, 0.5f, dy.data(), o[3].data());
  });
  expect_same_bits("dropout/adam", {start, start, std::vector<float>(n, 0.1f), start},
                   [&](auto& o) {
                     d.dropout_mask(n, 0.1f, 42, 7, o[0].data());
                     d.adam_update(n, 1e-3f, 0.9f, 0.98f, 1e-9f, x.data(), o[1].data(),
                                   o[2].data(), o[3].data());
                   });
  expect_same_bits("softmax family", {start, start, start, start, std::vector<float>(R),
                                      std::vector<float>(R)},
                   [&](auto& o) {
                     d.softmax(R, C, x.data(), o[0].data());
                     d.softmax_backward(R, C, o[0].data(), dy.data(), o[1].data());
                     d.log_softmax(R, C, x.data(), o[2].data());
                     d.log_softmax_backward(R, C, o[2].data(), dy.data(), o[1].data());
                     d.layer_norm(R, C, 1e-6f, x.data(), bias.data(), bias.data(), o[3].data(),
                                  o[4].data(), o[5].data());
                   });
  std::vector<int32_t> targets(R);
  for (int r = 0; r < R; ++r) targets[r] = r % 7 == 0 ? 0 : (r * 37) % C;  // some padding
  expect_same_bits("cross-entropy", {std::vector<float>(R), start, start}, [&](auto& o) {
    d.cross_entropy(R, C, x.data(), targets.data(), 0, 0.1f, o[0].data(), o[1].data());
    d.cross_entropy_backward(R, C, o[1].data(), targets.data(), 0, 0.1f, rowv.data(), o[2].data());
  });
  const int B = 200, H = 500;  // GRU: 200 x 3H inputs
  const auto xw = testing::random_values(size_t(B) * 3 * H, 8), hu = testing::random_values(size_t(B) * 3 * H, 9);
  const auto hp = testing::random_values(size_t(B) * H, 10), dh = testing::random_values(size_t(B) * H, 11);
  expect_same_bits("gru", {std::vector<float>(size_t(B) * H), std::vector<float>(size_t(B) * 4 * H),
                           std::vector<float>(size_t(B) * 3 * H), std::vector<float>(size_t(B) * 3 * H),
                           std::vector<float>(size_t(B) * H)},
                   [&](auto& o) {
                     d.gru_cell(B, H, xw.data(), hu.data(), hp.data(), o[0].data(), o[1].data());
                     d.gru_cell_backward(B, H, hp.data(), o[1].data(), dh.data(), o[2].data(),
                                         o[3].data(), o[4].data());
                   });
  const int dims[4] = {10, 30, 20, 50}, perm[4] = {0, 2, 1, 3}, perm2[4] = {3, 1, 0, 2};
  expect_same_bits("layout", {start, start, start}, [&](auto& o) {
    d.copy_block(R, C / 2, x.data() + 3, C, o[0].data(), C, true);
    d.permute4(dims, perm, x.data(), o[1].data(), false);
    d.permute4(dims, perm2, x.data(), o[2].data(), true);
  });
  // 256 attention-sized products (24 x 24 x 64), as the Transformer's heads.
  const int M = 24, N = 24, K = 64, batch = 256;
  const auto A = testing::random_values(size_t(batch) * M * K, 12),
             Bm = testing::random_values(size_t(batch) * K * N, 13);
  expect_same_bits("gemm_batched", {std::vector<float>(size_t(batch) * M * N)}, [&](auto& o) {
    d.gemm_batched(false, false, M, N, K, 1.0f, A.data(), M * K, Bm.data(), K * N, 0.0f,
                   o[0].data(), M * N, batch);
  });
}

}  // namespace
}  // namespace sl
