// Gradient checks and forward values of the last-axis normalisations.
#include <cmath>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, Softmax) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 6}, 1, 2.0f)},
            [](Graph&, const std::vector<Var>& x) { return ops::softmax(x[0]); });
}

TEST(GradCheck, LogSoftmax) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 6}, 1, 2.0f)},
            [](Graph&, const std::vector<Var>& x) { return ops::log_softmax(x[0]); });
}

TEST(OpValue, SoftmaxRowsSumToOneAndSurviveLargeLogits) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  std::vector<float> v = random_tensor(dev, {4, 37}, 1, 5.0f).to_host();
  for (int c = 0; c < 37; ++c) v[37 + c] += 1000.0f;  // would overflow without max subtraction
  Var a = g.constant(Tensor::from_host(dev, {4, 37}, v));
  std::vector<float> p = ops::softmax(a).value().to_host();
  std::vector<float> lp = ops::log_softmax(a).value().to_host();
  for (int r = 0; r < 4; ++r) {
    double s = 0, mx = -1e30;
    for (int c = 0; c < 37; ++c) mx = std::max<double>(mx, v[r * 37 + c]);
    double z = 0;
    for (int c = 0; c < 37; ++c) z += std::exp(v[r * 37 + c] - mx);
    for (int c = 0; c < 37; ++c) {
      const double ref = std::exp(v[r * 37 + c] - mx) / z;
      EXPECT_NEAR(p[r * 37 + c], ref, 1e-6 + 1e-5 * ref);
      EXPECT_NEAR(lp[r * 37 + c], v[r * 37 + c] - mx - std::log(z), 1e-4);
      s += p[r * 37 + c];
    }
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
}

TEST(GradCheck, LayerNorm) {
  Device& dev = cpu_device();
  gradcheck(dev,
            {random_tensor(dev, {3, 8}, 1, 2.0f), random_tensor(dev, {8}, 2),
             random_tensor(dev, {8}, 3)},
            [](Graph&, const std::vector<Var>& x) { return ops::layer_norm(x[0], x[1], x[2]); });
}

TEST(GradCheck, LayerNormWide) {  // > 16 columns: the vectorised lanes and the tail
  Device& dev = cpu_device();
  gradcheck(dev,
            {random_tensor(dev, {2, 37}, 1, 2.0f), random_tensor(dev, {37}, 2),
             random_tensor(dev, {37}, 3)},
            [](Graph&, const std::vector<Var>& x) { return ops::layer_norm(x[0], x[1], x[2]); });
}

TEST(GradCheck, LayerNormConstantGammaBeta) {  // only x needs a gradient
  Device& dev = cpu_device();
  Tensor gamma = random_tensor(dev, {8}, 2), beta = random_tensor(dev, {8}, 3);
  gradcheck(dev, {random_tensor(dev, {3, 8}, 1, 2.0f)}, [=](Graph& g, const std::vector<Var>& x) {
    return ops::layer_norm(x[0], g.constant(gamma), g.constant(beta));
  });
}

TEST(OpValue, LayerNormHasMeanZeroVarianceOne) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  std::vector<float> v = random_tensor(dev, {5, 64}, 1, 3.0f).to_host();
  for (float& x : v) x += 100.0f;  // a large offset: a one-pass variance would cancel
  Var x = g.constant(Tensor::from_host(dev, {5, 64}, v));
  Var ones = g.constant(Tensor::from_host(dev, {64}, std::vector<float>(64, 1.0f)));
  Var zeros = g.constant(Tensor::zeros(dev, {64}));
  std::vector<float> y = ops::layer_norm(x, ones, zeros, 1e-6f).value().to_host();
  for (int r = 0; r < 5; ++r) {
    double m = 0, s2 = 0;
    for (int c = 0; c < 64; ++c) m += y[r * 64 + c];
    m /= 64;
    for (int c = 0; c < 64; ++c) s2 += (y[r * 64 + c] - m) * (y[r * 64 + c] - m);
    EXPECT_NEAR(m, 0.0, 1e-5);
    EXPECT_NEAR(s2 / 64, 1.0, 1e-4);
  }
  Var gamma = g.constant(Tensor::from_host(dev, {64}, std::vector<float>(64, 2.0f)));
  Var beta = g.constant(Tensor::from_host(dev, {64}, std::vector<float>(64, 0.5f)));
  std::vector<float> y2 = ops::layer_norm(x, gamma, beta, 1e-6f).value().to_host();
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y2[i], 2.0f * y[i] + 0.5f, 1e-5);
  EXPECT_THROW(ops::layer_norm(x, g.constant(Tensor::zeros(dev, {63})), zeros),
               std::invalid_argument);
}

TEST(GradCheck, AttentionSoftmax) {
  Device& dev = cpu_device();
  Tensor lengths = Tensor::from_host_ids(dev, {2}, {3, 5});
  gradcheck(dev, {random_tensor(dev, {2, 2, 3, 5}, 1, 2.0f)},
            [=](Graph&, const std::vector<Var>& x) {
              return ops::attention_softmax(x[0], lengths, false);
            });
}

TEST(GradCheck, AttentionSoftmaxCausal) {
  Device& dev = cpu_device();
  Tensor lengths = Tensor::from_host_ids(dev, {2}, {4, 2});
  gradcheck(dev, {random_tensor(dev, {2, 2, 4, 4}, 1, 2.0f)},
            [=](Graph&, const std::vector<Var>& x) {
              return ops::attention_softmax(x[0], lengths, true);
            });
}

TEST(OpValue, AttentionSoftmaxMasksKeys) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  const int B = 2, H = 2, T = 4;
  Tensor lengths = Tensor::from_host_ids(dev, {B}, {4, 3});
  Var s = g.constant(random_tensor(dev, {B, H, T, T}, 1, 2.0f));
  std::vector<float> x = s.value().to_host();
  for (bool causal : {false, true}) {
    std::vector<float> p = ops::attention_softmax(s, lengths, causal).value().to_host();
    const int len[2] = {4, 3};
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int q = 0; q < T; ++q) {
          const size_t row = ((b * H + h) * T + q) * T;
          auto visible = [&](int k) { return k < len[b] && (!causal || k <= q); };
          double z = 0;
          for (int k = 0; k < T; ++k)
            if (visible(k)) z += std::exp(x[row + k]);
          for (int k = 0; k < T; ++k) {
            if (visible(k))
              EXPECT_NEAR(p[row + k], std::exp(x[row + k]) / z, 1e-6);
            else
              EXPECT_EQ(p[row + k], 0.0f) << "b" << b << " q" << q << " k" << k;
          }
        }
  }
  EXPECT_EQ(s.value().to_host(), x);  // the input is not modified
}

}  // namespace
}  // namespace sl
