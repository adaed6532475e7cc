// Gradient checks of the recurrent models' fused ops (GRU cell, additive attention scores) and
// their forwards against the equations / the unfused graph.
#include <cmath>
#include <cstring>

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

TEST(GradCheck, AdditiveAttentionScores) {
  Device& dev = cpu_device();
  const int B = 2, S = 3, A = 4;
  gradcheck(dev,
            {random_tensor(dev, {B, S, A}, 5, 1.5f), random_tensor(dev, {B, A}, 6, 1.5f),
             random_tensor(dev, {A, 1}, 7)},
            [](Graph&, const std::vector<Var>& x) {
              return ops::additive_attention_scores(x[0], x[1], x[2]);
            });
}

TEST(GradCheck, AdditiveAttentionScoresKeysSharedOverSteps) {
  // The decoder reuses one keys tensor at every step: its gradient accumulates across ops.
  Device& dev = cpu_device();
  const int B = 2, S = 3, A = 4;
  gradcheck(dev,
            {random_tensor(dev, {B, S, A}, 8), random_tensor(dev, {B, A}, 9),
             random_tensor(dev, {A, 1}, 10)},
            [](Graph&, const std::vector<Var>& x) {
              Var s1 = ops::additive_attention_scores(x[0], x[1], x[2]);
              Var q2 = ops::tanh(x[1]);
              return ops::add(s1, ops::additive_attention_scores(x[0], q2, x[2]));
            });
}

TEST(GradCheck, AdditiveAttentionScoresConstantKeys) {
  Device& dev = cpu_device();
  const int B = 2, S = 3, A = 4;
  Tensor keys = random_tensor(dev, {B, S, A}, 14);
  gradcheck(dev, {random_tensor(dev, {B, A}, 15), random_tensor(dev, {A, 1}, 16)},
            [=](Graph& g, const std::vector<Var>& x) {
              return ops::additive_attention_scores(g.constant(keys), x[0], x[1]);
            });
}

// The fused op against the graph it replaces, tanh(keys + repeat(q)) v: values and all three
// gradients bit for bit (two steps sharing keys, so the accumulating paths are compared too).
TEST(OpValue, AdditiveAttentionScoresEqualsUnfusedBitwise) {
  Device& dev = cpu_device();
  const int B = 5, S = 7, A = 24;
  std::vector<int32_t> ids(static_cast<size_t>(B) * S);
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s) ids[static_cast<size_t>(b) * S + s] = b;
  Tensor rep = Tensor::from_host_ids(dev, Shape{B, S}, ids);
  auto run = [&](bool fused, std::vector<std::vector<float>>* grads) {
    Graph g(dev, false, 1);
    Var keys = g.leaf(random_tensor(dev, {B, S, A}, 11, 2.0f));
    Var q = g.leaf(random_tensor(dev, {B, A}, 12, 2.0f));
    Var v = g.leaf(random_tensor(dev, {A, 1}, 13));
    Var total;
    for (int step = 0; step < 2; ++step) {
      Var qs = step == 0 ? q : ops::tanh(q);
      Var scores = fused ? ops::additive_attention_scores(keys, qs, v)
                         : ops::matmul(ops::tanh(ops::add(keys, ops::embedding(qs, rep))), v);
      Var w = g.constant(random_tensor(dev, {B, S, 1}, 20 + step));
      Var part = ops::sum(ops::mul(scores, w));
      total = step == 0 ? part : ops::add(total, part);
      if (step == 0) grads->push_back(scores.value().to_host());
    }
    g.backward(total);
    for (const Var& x : {keys, q, v}) grads->push_back(x.grad().to_host());
  };
  std::vector<std::vector<float>> fused, unfused;
  run(true, &fused);
  run(false, &unfused);
  const char* names[] = {"scores", "dkeys", "dq", "dv"};
  for (size_t i = 0; i < fused.size(); ++i) {
    ASSERT_EQ(fused[i].size(), unfused[i].size()) << names[i];
    EXPECT_EQ(0, std::memcmp(fused[i].data(), unfused[i].data(), fused[i].size() * sizeof(float)))
        << names[i] << " differs from the unfused graph";
  }
  Graph g(dev, false, 1);
  Var keys = g.constant(random_tensor(dev, {B, S, A}, 11));
  EXPECT_THROW(ops::additive_attention_scores(keys, keys, keys), std::invalid_argument);
  EXPECT_THROW(ops::additive_attention_scores(keys, g.constant(random_tensor(dev, {B, A}, 1)),
                                              g.constant(random_tensor(dev, {A, 2}, 2))),
               std::invalid_argument);
}

}  // namespace
}  // namespace sl
