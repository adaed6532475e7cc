// Dropout masks, Adam and the GRU cell backward against their formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"

namespace sl {
namespace {

using testing::on_device;
using testing::random_values;

// splitmix64 multiplies through mul64 (32-bit halves, so the dropout loop vectorises): it must
// be Vigna's SplitMix64 exactly, i.e. equal the native 64-bit products and its known output.
TEST(Kernel, SplitMix64IsTheReferenceAlgorithm) {
  auto reference = [](uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);  // SplitMix64's first output from state 0
  uint64_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // varied operands, all bits
    ASSERT_EQ(splitmix64(x), reference(x)) << x;
    ASSERT_EQ(mul64(x, ~x), x * ~x) << x;
  }
}

TEST(Kernel, DropoutMaskIsCounterUniformOfTheIndex) {
  Device& dev = cpu_device();
  const size_t n = 1001;
  const float p = 0.3f;
  Tensor m = Tensor::empty(dev, {1001});
  dev.dropout_mask(n, p, 11, 3, m.f32());
  std::vector<float> got = m.to_host();
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(got[i], counter_uniform(11, 3, i) >= p ? 1.0f / (1.0f - p) : 0.0f) << i;
}

TEST(Kernel, AdamOneStepMatchesFormula) {
  Device& dev = cpu_device();
  const size_t n = 33;
  const float lr = 1e-3f, b1 = 0.9f, b2 = 0.98f, eps = 1e-9f;
  std::vector<float> G = random_values(n, 1), M = random_values(n, 2), V = random_values(n, 3),
                     P = random_values(n, 4);
  for (float& v : V) v = std::fabs(v);
  // Step t = 3 with the bias correction folded into lr_t and eps_t (Device::adam_update).
  const int t = 3;
  const double c1 = 1 - std::pow(b1, t), c2 = 1 - std::pow(b2, t);
  const float lr_t = static_cast<float>(lr * std::sqrt(c2) / c1);
  const float eps_t = static_cast<float>(eps * std::sqrt(c2));
  Tensor g = on_device(dev, G), m = on_device(dev, M), v = on_device(dev, V), p = on_device(dev, P);
  dev.adam_update(n, lr_t, b1, b2, eps_t, g.f32(), m.f32(), v.f32(), p.f32());
  std::vector<float> mh = m.to_host(), vh = v.to_host(), ph = p.to_host();
  for (size_t i = 0; i < n; ++i) {
    const double mi = b1 * M[i] + (1 - b1) * G[i];
    const double vi = b2 * V[i] + (1 - b2) * G[i] * G[i];
    // The textbook form: p -= lr * mhat / (sqrt(vhat) + eps).
    const double pi = P[i] - lr * (mi / c1) / (std::sqrt(vi / c2) + eps);
    EXPECT_NEAR(mh[i], mi, 1e-6);
    EXPECT_NEAR(vh[i], vi, 1e-6);
    EXPECT_NEAR(ph[i], pi, 1e-6);
  }
}

TEST(Kernel, GruBackwardMatchesChainRule) {
  Device& dev = cpu_device();
  const int B = 2, H = 5;
  std::vector<float> XW = random_values(B * 3 * H, 1, 2.0f), HU = random_values(B * 3 * H, 2, 2.0f),
                     HP = random_values(B * H, 3), DH = random_values(B * H, 4);
  Tensor xw = on_device(dev, XW), hu = on_device(dev, HU), hp = on_device(dev, HP),
         dh = on_device(dev, DH);
  Tensor h = Tensor::empty(dev, {B, H}), cache = Tensor::empty(dev, {B, 4 * H});
  Tensor dxw = Tensor::zeros(dev, {B, 3 * H}), dhu = Tensor::zeros(dev, {B, 3 * H}),
         dhp = Tensor::zeros(dev, {B, H});
  dev.gru_cell(B, H, xw.f32(), hu.f32(), hp.f32(), h.f32(), cache.f32());
  dev.gru_cell_backward(B, H, hp.f32(), cache.f32(), dh.f32(), dxw.f32(), dhu.f32(), dhp.f32());
  std::vector<float> gx = dxw.to_host(), gu = dhu.to_host(), gp = dhp.to_host();
  auto sig = [](double a) { return 1 / (1 + std::exp(-a)); };
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < H; ++j) {
      const int o = b * 3 * H;
      const double r = sig(XW[o + j] + HU[o + j]), z = sig(XW[o + H + j] + HU[o + H + j]);
      const double un = HU[o + 2 * H + j], n = std::tanh(XW[o + 2 * H + j] + r * un);
      const double g = DH[b * H + j];
      const double dn = g * (1 - z) * (1 - n * n), dz = g * (HP[b * H + j] - n) * z * (1 - z);
      const double dr = dn * un * r * (1 - r);
      EXPECT_NEAR(gx[o + j], dr, 1e-6);
      EXPECT_NEAR(gx[o + H + j], dz, 1e-6);
      EXPECT_NEAR(gx[o + 2 * H + j], dn, 1e-6);
      EXPECT_NEAR(gu[o + j], dr, 1e-6);
      EXPECT_NEAR(gu[o + H + j], dz, 1e-6);
      EXPECT_NEAR(gu[o + 2 * H + j], dn * r, 1e-6);
      EXPECT_NEAR(gp[b * H + j], g * z, 1e-6);
    }
}

}  // namespace
}  // namespace sl
