// Ops composed the way the models use them, constants mixed with leaves, and parameters
// whose gradients land in the arena.
#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, AttentionBlockComposite) {
  // x [B*T, D] -> heads -> scaled dot-product attention -> merge -> residual + layer norm.
  Device& dev = cpu_device();
  const int B = 2, T = 3, H = 2, Dh = 2, D = H * Dh;
  Tensor lengths = Tensor::from_host_ids(dev, {B}, {3, 2});
  gradcheck(dev,
            {random_tensor(dev, {B * T, D}, 1), random_tensor(dev, {D, 3 * D}, 2, 0.7f),
             random_tensor(dev, {D}, 3), random_tensor(dev, {D}, 4)},
            [=](Graph&, const std::vector<Var>& x) {
              Var qkv = ops::matmul(x[0], x[1]);  // [B*T, 3D]
              auto head = [&](int i) {
                Var part = ops::slice(qkv, 1, i * D, D);
                return ops::permute(ops::reshape(part, Shape{B, T, H, Dh}), {0, 2, 1, 3});
              };
              Var q = head(0), k = head(1), v = head(2);
              Var s = ops::scale(ops::bmm(q, k, false, true), 0.7f);  // [B, H, T, T]
              Var p = ops::attention_softmax(s, lengths, true);
              Var o = ops::permute(ops::bmm(p, v), {0, 2, 1, 3});  // [B, T, H, Dh]
              Var merged = ops::reshape(o, Shape{B * T, D});
              return ops::layer_norm(ops::add(x[0], merged), x[2], x[3]);
            },
            3e-2, 3e-3);
}

TEST(GradCheck, ConstantsGetNoGradient) {
  Device& dev = cpu_device();
  Tensor c = random_tensor(dev, {4, 3}, 5);
  gradcheck(dev, {random_tensor(dev, {2, 4}, 1)}, [=](Graph& g, const std::vector<Var>& x) {
    Var k = g.constant(c);
    Var y = ops::matmul(x[0], k);
    EXPECT_FALSE(k.node()->grad.defined());
    return ops::tanh(ops::concat({y, ops::matmul(x[0], k)}, 0));
  });
  Graph g(dev, false, 1);
  Var k = g.constant(c);
  Var y = ops::relu(ops::matmul(g.constant(random_tensor(dev, {2, 4}, 1)), k));
  EXPECT_FALSE(y.requires_grad());
}

TEST(GradCheck, ParameterGradientsAccumulateIntoTheArena) {
  Device& dev = cpu_device();
  ParameterArena arena(dev);
  const int w = arena.declare("w", Shape{3, 2});
  const int b = arena.declare("b", Shape{2});
  arena.allocate();
  arena.value(w).copy_from(random_tensor(dev, {3, 2}, 1));
  arena.value(b).copy_from(random_tensor(dev, {2}, 2));
  Tensor x = random_tensor(dev, {4, 3}, 3);
  auto step = [&] {
    Graph g(dev, false, 1);
    Var y = ops::add(ops::matmul(g.constant(x), g.param(arena, w)), g.param(arena, b));
    g.backward(ops::sum(y));
  };
  step();
  std::vector<float> g1 = arena.grads().to_host();
  // d sum(xW + b) / dW[k, j] = sum_r x[r, k]; / db[j] = rows.
  std::vector<float> xh = x.to_host();
  for (int k = 0; k < 3; ++k) {
    float s = 0;
    for (int r = 0; r < 4; ++r) s += xh[r * 3 + k];
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(g1[arena.offset(w) + k * 2 + j], s, 1e-6);
  }
  for (int j = 0; j < 2; ++j) EXPECT_FLOAT_EQ(g1[arena.offset(b) + j], 4.0f);
  step();  // a second backward without zero_grads adds on top
  std::vector<float> g2 = arena.grads().to_host();
  for (size_t i = 0; i < g1.size(); ++i) EXPECT_FLOAT_EQ(g2[i], 2 * g1[i]);
}

}  // namespace
}  // namespace sl
