// Reductions: CUDA against the CPU backend, and bitwise run-to-run determinism on the GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

using CudaReduce = CudaVsCpu;

TEST_F(CudaReduce, ReduceSumAndSumSquares) {
  for (size_t n : {size_t(1), size_t(255), size_t(4097), size_t(3000017)}) {
    Pair x = random_pair(n, 1, -1.0f, 3.0f);
    for (bool acc : {false, true}) {
      Pair y = pair({0.75f});
      on_both([&](Device& d, int s) { d.reduce_sum(n, x.f(s), y.f(s), acc); });
      expect_close(y, "reduce_sum n=" + std::to_string(n) + " acc=" + std::to_string(acc), 1e-5f, 1e-6f);
    }
    const double c = cpu_device().sum_squares(n, x.f(0)), g = gpu().sum_squares(n, x.f(1));
    EXPECT_NEAR(g, c, 1e-9 * c) << "sum_squares n=" << n;
  }
}

TEST_F(CudaReduce, ReductionsAreBitwiseRepeatable) {
  const size_t n = 2000003;
  Pair x = random_pair(n, 2);
  Pair y1 = pair({0.0f}), y2 = pair({0.0f});
  gpu().reduce_sum(n, x.f(1), y1.f(1), false);
  gpu().reduce_sum(n, x.f(1), y2.f(1), false);
  cuda_test::expect_same_bits(y1.host(1), y2.host(1), "reduce_sum twice");
  const double a = gpu().sum_squares(n, x.f(1)), b = gpu().sum_squares(n, x.f(1));
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << a << " vs " << b;
}

TEST_F(CudaReduce, SumRowsAcc) {
  const int shapes[][2] = {{1, 1}, {3, 1000}, {4096, 512}, {70001, 3}, {100, 33}};
  for (const auto& sh : shapes) {
    const int rows = sh[0], cols = sh[1];
    Pair x = random_pair(size_t(rows) * cols, 3), y = random_pair(cols, 4);
    on_both([&](Device& d, int s) { d.sum_rows_acc(rows, cols, x.f(s), y.f(s)); });
    // Sums of `rows` terms of size ~1: float rounding grows like sqrt(rows).
    expect_close(y, "sum_rows_acc " + std::to_string(rows) + "x" + std::to_string(cols), 1e-4f,
                 2e-6f * std::sqrt(float(rows)));
    Pair y2 = random_pair(cols, 4);
    gpu().sum_rows_acc(rows, cols, x.f(1), y2.f(1));
    cuda_test::expect_same_bits(y.host(1), y2.host(1), "sum_rows_acc repeat");
  }
}

}  // namespace
}  // namespace sl::cuda_test
