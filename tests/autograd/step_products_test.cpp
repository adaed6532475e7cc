// ops::StepProducts: the weight gradient taken once over all steps must equal the per-step
// gradients of linear(), and pass a finite-difference check through a recurrence.
#include "autograd/step_products.h"

#include <optional>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

// h_{t+1} = tanh(h_t W + b + x_t) for t < 3, plus one product whose output is never used (its
// step gets no gradient, so it must add nothing). Returns the stacked states [3 * rows, H].
Var recurrence(const std::vector<Var>& x, bool step_products, bool with_bias) {
  Graph& g = x[0].graph();
  const Var& h0 = x[0];
  const Var& w = x[1];
  const Var bias = with_bias ? x[2] : Var();
  const Var& inputs = x[3];  // [3, rows, H]
  const int64_t rows = h0.shape()[0], H = h0.shape()[1];
  std::optional<ops::StepProducts> sp;
  if (step_products) sp.emplace(g, w, bias);
  auto product = [&](const Var& h) {
    if (sp) return (*sp)(h);
    return with_bias ? ops::linear(h, w, bias) : ops::matmul(h, w);
  };
  Var h = h0;
  std::vector<Var> states;
  for (int t = 0; t < 3; ++t) {
    Var x_t = ops::reshape(ops::slice(inputs, 0, t, 1), Shape{rows, H});
    h = ops::tanh(ops::add(product(h), x_t));
    states.push_back(h);
    if (t == 1) product(h);  // applied, never used
  }
  return ops::concat(states, 0);
}

std::vector<Tensor> inputs(Device& dev) {
  return {random_tensor(dev, {2, 3}, 1), random_tensor(dev, {3, 3}, 2, 0.8f),
          random_tensor(dev, {3}, 3), random_tensor(dev, {3, 2, 3}, 4)};
}

TEST(GradCheck, StepProductsThroughARecurrence) {
  Device& dev = cpu_device();
  for (bool with_bias : {true, false})
    gradcheck(dev, inputs(dev), [=](Graph&, const std::vector<Var>& x) {
      return recurrence(x, /*step_products=*/true, with_bias);
    });
}

TEST(OpValue, StepProductsEqualPerStepLinear) {
  Device& dev = cpu_device();
  const std::vector<Tensor> in = inputs(dev);
  auto grads = [&](bool step_products) {
    Graph g(dev, false, 1);
    std::vector<Var> x;
    for (const Tensor& t : in) x.push_back(g.leaf(t));
    Var y = recurrence(x, step_products, true);
    g.backward(ops::sum(ops::mul(y, g.constant(random_tensor(dev, y.shape(), 9)))));
    std::vector<std::vector<float>> out{y.value().to_host()};
    for (const Var& v : x) out.push_back(v.grad().to_host());
    return out;
  };
  const auto a = grads(true), b = grads(false);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (size_t e = 0; e < a[i].size(); ++e)
      EXPECT_NEAR(a[i][e], b[i][e], 1e-5) << "output/gradient " << i << " element " << e;
  }
}

TEST(OpValue, StepProductsRejectBadShapes) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var w = g.leaf(random_tensor(dev, {3, 4}, 1));
  EXPECT_THROW(ops::StepProducts(g, w, g.leaf(random_tensor(dev, {3}, 2))), std::invalid_argument);
  ops::StepProducts sp(g, w, Var());
  EXPECT_THROW(sp(g.leaf(random_tensor(dev, {2, 4}, 3))), std::invalid_argument);
}

}  // namespace
}  // namespace sl
