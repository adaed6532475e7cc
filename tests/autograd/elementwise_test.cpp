// Gradient checks of the element-wise ops, and the dropout mask contract.
#include <cmath>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

// Values at least 0.1 away from 0, so a finite difference never straddles ReLU's kink.
Tensor away_from_zero(Device& dev, const Shape& s, uint64_t stream) {
  std::vector<float> v = random_tensor(dev, s, stream).to_host();
  for (float& x : v) x = x < 0 ? x - 0.1f : x + 0.1f;
  return Tensor::from_host(dev, s, v);
}

TEST(GradCheck, Add) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {3, 4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::add(x[0], x[1]); });
}

TEST(GradCheck, AddBiasBroadcast) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {2, 3, 4}, 1), random_tensor(dev, {4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::add(x[0], x[1]); });
  gradcheck(dev, {random_tensor(dev, {2, 3, 4}, 1), random_tensor(dev, {3, 4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::add(x[0], x[1]); });
}

TEST(GradCheck, AddRejectsNonTrailingShape) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  EXPECT_THROW(ops::add(g.leaf(random_tensor(dev, {3, 4}, 1)), g.leaf(random_tensor(dev, {3}, 2))),
               std::invalid_argument);
}

TEST(GradCheck, Sub) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {3, 4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::sub(x[0], x[1]); });
}

TEST(GradCheck, Mul) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {3, 4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::mul(x[0], x[1]); });
}

TEST(GradCheck, MulSameInputTwice) {  // gradients of a reused Var accumulate
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::mul(x[0], x[0]); });
}

TEST(GradCheck, Scale) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::scale(x[0], -2.5f); });
}

TEST(GradCheck, Relu) {
  Device& dev = cpu_device();
  gradcheck(dev, {away_from_zero(dev, {3, 5}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::relu(x[0]); });
}

TEST(GradCheck, Tanh) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 5}, 1, 3.0f)},
            [](Graph&, const std::vector<Var>& x) { return ops::tanh(x[0]); });
}

TEST(GradCheck, Sigmoid) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 5}, 1, 4.0f)},
            [](Graph&, const std::vector<Var>& x) { return ops::sigmoid(x[0]); });
}

TEST(GradCheck, BlendRows) {
  Device& dev = cpu_device();
  Tensor m = Tensor::from_host(dev, {3}, {1.0f, 0.0f, 1.0f});
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {3, 4}, 2)},
            [=](Graph&, const std::vector<Var>& x) { return ops::blend_rows(m, x[0], x[1]); });
}

TEST(OpValue, ActivationsMatchLibm) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.leaf(random_tensor(dev, {1000}, 3, 10.0f));
  std::vector<float> x = a.value().to_host(), t = ops::tanh(a).value().to_host(),
                     s = ops::sigmoid(a).value().to_host(), r = ops::relu(a).value().to_host();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(t[i], std::tanh(static_cast<double>(x[i])), 2e-7 + 2e-6 * std::fabs(t[i])) << x[i];
    const double sr = 1.0 / (1.0 + std::exp(-static_cast<double>(x[i])));
    EXPECT_NEAR(s[i], sr, 1e-6 * sr) << x[i];
    EXPECT_EQ(r[i], x[i] > 0 ? x[i] : 0.0f);
  }
}

TEST(OpValue, BlendRowsPicksRows) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Tensor m = Tensor::from_host(dev, {2}, {1.0f, 0.0f});
  Var a = g.constant(Tensor::from_host(dev, {2, 2}, {1, 2, 3, 4}));
  Var b = g.constant(Tensor::from_host(dev, {2, 2}, {5, 6, 7, 8}));
  EXPECT_EQ(ops::blend_rows(m, a, b).value().to_host(), (std::vector<float>{1, 2, 7, 8}));
}

// ---- dropout

TEST(GradCheck, Dropout) {  // the harness rebuilds the graph with one seed: the mask is fixed
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {4, 8}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::dropout(x[0], 0.3f); });
}

TEST(GradCheck, DropoutGradIsMaskTimesDy) {
  Device& dev = cpu_device();
  const float p = 0.25f;
  const uint64_t seed = 42;
  Graph g(dev, true, seed);
  Tensor a0 = random_tensor(dev, {5, 7}, 1), w0 = random_tensor(dev, {5, 7}, 2);
  Var a = g.leaf(a0), w = g.constant(w0);
  (void)ops::dropout(a, 0.5f);  // stream 0; the op under test gets stream 1
  Var y = ops::dropout(a, p);
  g.backward(ops::sum(ops::mul(y, w)));
  std::vector<float> ah = a0.to_host(), wh = w0.to_host(), yh = y.value().to_host(),
                     gh = a.grad().to_host();
  int dropped = 0;
  for (size_t i = 0; i < ah.size(); ++i) {
    const float mask = counter_uniform(seed, 1, i) >= p ? 1.0f / (1.0f - p) : 0.0f;
    dropped += mask == 0.0f;
    EXPECT_FLOAT_EQ(yh[i], ah[i] * mask);
    EXPECT_FLOAT_EQ(gh[i], wh[i] * mask);
  }
  EXPECT_GT(dropped, 0);
}

TEST(GradCheck, DropoutMaskReproducibleAndKeepRate) {
  Device& dev = cpu_device();
  const float p = 0.1f;
  Tensor ones = Tensor::from_host(dev, {200000}, std::vector<float>(200000, 1.0f));
  auto run = [&](uint64_t seed) {
    Graph g(dev, true, seed);
    return ops::dropout(g.constant(ones), p).value().to_host();
  };
  std::vector<float> m1 = run(5), m2 = run(5), m3 = run(6);
  EXPECT_EQ(m1, m2);
  EXPECT_NE(m1, m3);
  size_t kept = 0;
  for (float v : m1) {
    ASSERT_TRUE(v == 0.0f || std::fabs(v - 1.0f / (1.0f - p)) < 1e-6f) << v;
    kept += v != 0.0f;
  }
  EXPECT_NEAR(static_cast<double>(kept) / m1.size(), 1.0 - p, 0.005);
}

TEST(GradCheck, DropoutIdentityWhenDisabled) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.leaf(random_tensor(dev, {3, 3}, 1));
  EXPECT_EQ(ops::dropout(a, 0.5f).node(), a.node());
  Graph g2(dev, true, 1);
  Var b = g2.leaf(random_tensor(dev, {3, 3}, 1));
  EXPECT_EQ(ops::dropout(b, 0.0f).node(), b.node());
  EXPECT_THROW(ops::dropout(b, 1.0f), std::invalid_argument);
}

}  // namespace
}  // namespace sl
