// Element-wise kernels and reductions against naive loops.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"

namespace sl {
namespace {

using testing::on_device;
using testing::random_values;

TEST(Kernel, FillAxpbyMul) {
  Device& dev = cpu_device();
  const size_t n = 37;
  std::vector<float> X = random_values(n, 1), Y = random_values(n, 2);
  Tensor x = on_device(dev, X), y = on_device(dev, Y);
  dev.axpby(n, 2.0f, x.f32(), -0.5f, y.f32());
  std::vector<float> got = y.to_host();
  for (size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(got[i], 2.0f * X[i] - 0.5f * Y[i]);
  dev.fill(n, std::nanf(""), y.f32());
  dev.axpby(n, 3.0f, x.f32(), 0.0f, y.f32());  // b == 0 overwrites, NaN does not survive
  got = y.to_host();
  for (size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(got[i], 3.0f * X[i]);
  dev.fill(n, 1.5f, y.f32());
  dev.mul(n, x.f32(), x.f32(), y.f32(), true);
  got = y.to_host();
  for (size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(got[i], 1.5f + X[i] * X[i]);
  dev.mul(n, x.f32(), x.f32(), y.f32(), false);
  got = y.to_host();
  for (size_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(got[i], X[i] * X[i]);
}

TEST(Kernel, BiasRowsAndRowScales) {
  Device& dev = cpu_device();
  const int R = 5, C = 19;
  std::vector<float> X = random_values(R * C, 1), Bv = random_values(C, 2), M = random_values(R, 3);
  Tensor x = on_device(dev, X), b = on_device(dev, Bv), m = on_device(dev, M);
  Tensor y = Tensor::empty(dev, {R, C});
  dev.add_bias(R, C, x.f32(), b.f32(), y.f32());
  std::vector<float> got = y.to_host();
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) EXPECT_FLOAT_EQ(got[r * C + c], X[r * C + c] + Bv[c]);
  dev.add_bias(R, C, y.f32(), b.f32(), y.f32());  // in place
  got = y.to_host();
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) EXPECT_FLOAT_EQ(got[r * C + c], X[r * C + c] + Bv[c] + Bv[c]);

  Tensor s = on_device(dev, Bv);
  dev.sum_rows_acc(R, C, x.f32(), s.f32());
  got = s.to_host();
  for (int c = 0; c < C; ++c) {
    float ref = Bv[c];
    for (int r = 0; r < R; ++r) ref += X[r * C + c];
    EXPECT_NEAR(got[c], ref, 1e-6);
  }
  dev.mul_rows(R, C, x.f32(), m.f32(), y.f32(), false);
  dev.mul_rows(R, C, x.f32(), m.f32(), y.f32(), true);
  got = y.to_host();
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) EXPECT_FLOAT_EQ(got[r * C + c], 2.0f * X[r * C + c] * M[r]);
}

TEST(Kernel, UnaryBackwardAccumulates) {
  Device& dev = cpu_device();
  const size_t n = 50;
  std::vector<float> X = random_values(n, 1, 3.0f), DY = random_values(n, 2), DX0 = random_values(n, 3);
  Tensor x = on_device(dev, X), dy = on_device(dev, DY), y = Tensor::empty(dev, {50});
  for (Unary op : {Unary::Relu, Unary::Tanh, Unary::Sigmoid}) {
    dev.unary(op, n, x.f32(), y.f32());
    Tensor dx = on_device(dev, DX0);
    dev.unary_backward(op, n, x.f32(), y.f32(), dy.f32(), dx.f32());
    std::vector<float> got = dx.to_host();
    for (size_t i = 0; i < n; ++i) {
      const double xi = X[i];
      double d = 0;
      if (op == Unary::Relu) d = xi > 0 ? 1 : 0;
      if (op == Unary::Tanh) d = 1 - std::tanh(xi) * std::tanh(xi);
      if (op == Unary::Sigmoid) {
        const double s = 1 / (1 + std::exp(-xi));
        d = s * (1 - s);
      }
      EXPECT_NEAR(got[i], DX0[i] + DY[i] * d, 1e-6);
    }
  }
}

TEST(Kernel, ReductionsAreExactEnoughAndDeterministic) {
  Device& dev = cpu_device();
  const size_t n = 100003;
  std::vector<float> X = random_values(n, 1);
  Tensor x = on_device(dev, X), s = Tensor::empty(dev, {1});
  double ref = 0, ref2 = 0;
  for (float v : X) {
    ref += v;
    ref2 += static_cast<double>(v) * v;
  }
  dev.reduce_sum(n, x.f32(), s.f32(), false);
  const float s1 = s.to_host()[0];
  EXPECT_NEAR(s1, ref, 1e-3);
  dev.reduce_sum(n, x.f32(), s.f32(), true);
  EXPECT_NEAR(s.to_host()[0], 2 * ref, 2e-3);
  EXPECT_NEAR(dev.sum_squares(n, x.f32()), ref2, 1e-6 * ref2);
  EXPECT_EQ(dev.sum_squares(n, x.f32()), dev.sum_squares(n, x.f32()));
  Tensor dx = on_device(dev, std::vector<float>(5, 1.0f)), dy = on_device(dev, {2.0f});
  dev.broadcast_scalar_acc(5, 0.25f, dy.f32(), dx.f32());
  EXPECT_EQ(dx.to_host(), std::vector<float>(5, 1.5f));
}

}  // namespace
}  // namespace sl
