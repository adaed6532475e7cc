// Row kernels (softmax, layer norm, cross-entropy, attention masks) against double references.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"

namespace sl {
namespace {

using testing::on_device;
using testing::random_values;

TEST(Kernel, SoftmaxAndBackwardMatchReference) {
  Device& dev = cpu_device();
  const int R = 3, C = 41;
  std::vector<float> X = random_values(R * C, 1, 20.0f), DY = random_values(R * C, 2);
  Tensor x = on_device(dev, X), dy = on_device(dev, DY), y = Tensor::empty(dev, {R, C});
  Tensor dx = Tensor::zeros(dev, {R, C});
  dev.softmax(R, C, x.f32(), y.f32());
  dev.softmax_backward(R, C, y.f32(), dy.f32(), dx.f32());
  std::vector<float> p = y.to_host(), d = dx.to_host();
  for (int r = 0; r < R; ++r) {
    double mx = -1e30, z = 0, dot = 0;
    for (int c = 0; c < C; ++c) mx = std::max<double>(mx, X[r * C + c]);
    for (int c = 0; c < C; ++c) z += std::exp(X[r * C + c] - mx);
    for (int c = 0; c < C; ++c) dot += DY[r * C + c] * std::exp(X[r * C + c] - mx) / z;
    for (int c = 0; c < C; ++c) {
      const double pr = std::exp(X[r * C + c] - mx) / z;
      EXPECT_NEAR(p[r * C + c], pr, 1e-6 + 1e-5 * pr);
      EXPECT_NEAR(d[r * C + c], pr * (DY[r * C + c] - dot), 1e-6);
    }
  }
}

TEST(Kernel, LayerNormMatchesDoubleReference) {
  Device& dev = cpu_device();
  const int R = 4, C = 256;
  std::vector<float> X = random_values(R * C, 1, 2.0f), G = random_values(C, 2),
                     Bv = random_values(C, 3);
  for (float& v : X) v += 30.0f;
  Tensor x = on_device(dev, X), g = on_device(dev, G), b = on_device(dev, Bv);
  Tensor y = Tensor::empty(dev, {R, C}), mean = Tensor::empty(dev, {R}), rstd = Tensor::empty(dev, {R});
  const float eps = 1e-6f;
  dev.layer_norm(R, C, eps, x.f32(), g.f32(), b.f32(), y.f32(), mean.f32(), rstd.f32());
  std::vector<float> yh = y.to_host(), mh = mean.to_host(), rh = rstd.to_host();
  for (int r = 0; r < R; ++r) {
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c) m += X[r * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (X[r * C + c] - m) * (X[r * C + c] - m);
    const double rs = 1 / std::sqrt(v / C + eps);
    EXPECT_NEAR(mh[r], m, 1e-5 * std::fabs(m));
    EXPECT_NEAR(rh[r], rs, 1e-4 * rs);
    for (int c = 0; c < C; ++c)
      EXPECT_NEAR(yh[r * C + c], (X[r * C + c] - m) * rs * G[c] + Bv[c], 1e-4);
  }
}

TEST(Kernel, CrossEntropyLossProbsAndBackward) {
  Device& dev = cpu_device();
  const int R = 4, V = 23, pad = 5;
  const float ls = 0.1f;
  std::vector<float> X = random_values(R * V, 1, 4.0f), DL = {0.5f, 2.0f, 1.0f, -1.0f};
  std::vector<int32_t> T = {3, pad, 22, 0};
  Tensor x = on_device(dev, X), dl = on_device(dev, DL), t = Tensor::from_host_ids(dev, {R}, T);
  Tensor loss = Tensor::empty(dev, {R}), probs = Tensor::empty(dev, {R, V});
  Tensor dx = Tensor::from_host(dev, {R, V}, std::vector<float>(R * V, 1.0f));
  dev.cross_entropy(R, V, x.f32(), t.i32(), pad, ls, loss.f32(), probs.f32());
  dev.cross_entropy_backward(R, V, probs.f32(), t.i32(), pad, ls, dl.f32(), dx.f32());
  std::vector<float> lh = loss.to_host(), dh = dx.to_host();
  for (int r = 0; r < R; ++r) {
    if (T[r] == pad) {
      EXPECT_EQ(lh[r], 0.0f);
      for (int v = 0; v < V; ++v) EXPECT_EQ(dh[r * V + v], 1.0f);
      continue;
    }
    double mx = -1e30, z = 0, l = 0;
    for (int v = 0; v < V; ++v) mx = std::max<double>(mx, X[r * V + v]);
    for (int v = 0; v < V; ++v) z += std::exp(X[r * V + v] - mx);
    for (int v = 0; v < V; ++v) {
      const double q = (v == T[r] ? 1 - ls : 0) + ls / V;
      const double p = std::exp(X[r * V + v] - mx) / z;
      l -= q * std::log(p);
      EXPECT_NEAR(dh[r * V + v], 1.0 + DL[r] * (p - q), 1e-5);
    }
    EXPECT_NEAR(lh[r], l, 1e-5 * l);
  }
}

TEST(Kernel, AttentionMaskPaddingAndCausal) {
  Device& dev = cpu_device();
  const int B = 2, H = 1, Tq = 3, Tk = 4;
  std::vector<int32_t> L = {4, 2};
  Tensor len = Tensor::from_host_ids(dev, {B}, L);
  for (bool causal : {false, true}) {
    Tensor s = Tensor::zeros(dev, {B, H, Tq, Tk});
    dev.attention_mask(B, H, Tq, Tk, len.i32(), causal, s.f32());
    std::vector<float> got = s.to_host();
    for (int b = 0; b < B; ++b)
      for (int q = 0; q < Tq; ++q)
        for (int k = 0; k < Tk; ++k) {
          const bool masked = k >= L[b] || (causal && k > q);
          EXPECT_EQ(got[(b * Tq + q) * Tk + k], masked ? -1e9f : 0.0f);
        }
  }
}

}  // namespace
}  // namespace sl
