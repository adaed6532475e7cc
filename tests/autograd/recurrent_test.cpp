// Gradient check of the GRU cell and its forward against the equations.
#include <cmath>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, GruCell) {
  Device& dev = cpu_device();
  const int B = 2, H = 3;
  gradcheck(dev,
            {random_tensor(dev, {B, 3 * H}, 1, 2.0f), random_tensor(dev, {B, 3 * H}, 2, 2.0f),
             random_tensor(dev, {B, H}, 3)},
            [](Graph&, const std::vector<Var>& x) { return ops::gru_cell(x[0], x[1], x[2]); });
}

TEST(GradCheck, GruCellTwoStepsConstantInitialState) {
  Device& dev = cpu_device();
  const int B = 2, H = 3;
  Tensor h0 = Tensor::zeros(dev, {B, H});
  gradcheck(dev,
            {random_tensor(dev, {B, 3 * H}, 1, 2.0f), random_tensor(dev, {B, 3 * H}, 2, 2.0f),
             random_tensor(dev, {H, 3 * H}, 4)},
            [=](Graph& g, const std::vector<Var>& x) {
              Var h1 = ops::gru_cell(x[0], x[1], g.constant(h0));
              return ops::gru_cell(x[0], ops::matmul(h1, x[2]), h1);
            });
}

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(OpValue, GruCellMatchesEquations) {
  Device& dev = cpu_device();
  const int B = 3, H = 4;
  Graph g(dev, false, 1);
  Var xw = g.constant(random_tensor(dev, {B, 3 * H}, 1, 3.0f));
  Var hu = g.constant(random_tensor(dev, {B, 3 * H}, 2, 3.0f));
  Var hp = g.constant(random_tensor(dev, {B, H}, 3));
  std::vector<float> h = ops::gru_cell(xw, hu, hp).value().to_host();
  std::vector<float> x = xw.value().to_host(), u = hu.value().to_host(), p = hp.value().to_host();
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < H; ++j) {
      const int o = b * 3 * H;
      const double r = sig(x[o + j] + u[o + j]);
      const double z = sig(x[o + H + j] + u[o + H + j]);
      const double n = std::tanh(x[o + 2 * H + j] + r * u[o + 2 * H + j]);
      EXPECT_NEAR(h[b * H + j], (1 - z) * n + z * p[b * H + j], 1e-6);
    }
  EXPECT_THROW(ops::gru_cell(xw, hp, hp), std::invalid_argument);
}

}  // namespace
}  // namespace sl
