// Gradient checks and hand-computed values of the reductions and cross-entropy.
#include <cmath>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, Sum) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::sum(ops::mul(x[0], x[0])); });
}

TEST(GradCheck, Mean) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1)},
            [](Graph&, const std::vector<Var>& x) { return ops::mean(ops::mul(x[0], x[0])); });
}

TEST(OpValue, SumAndMean) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.constant(Tensor::from_host(dev, {2, 3}, {1, 2, 3, 4, 5, 6.5f}));
  EXPECT_EQ(ops::sum(a).shape().rank(), 0);
  EXPECT_FLOAT_EQ(ops::sum(a).value().to_host()[0], 21.5f);
  EXPECT_FLOAT_EQ(ops::mean(a).value().to_host()[0], 21.5f / 6);
}

// Hand computation of -sum_v q_v log p_v with q = (1-ls) onehot + ls/V, 0 for pad rows.
double reference_ce(const std::vector<float>& logits, const std::vector<int32_t>& t, int V,
                    float ls, int pad) {
  double total = 0;
  for (size_t r = 0; r < t.size(); ++r) {
    if (t[r] == pad) continue;
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(static_cast<double>(logits[r * V + v]));
    for (int v = 0; v < V; ++v) {
      const double q = (v == t[r] ? 1.0 - ls : 0.0) + ls / V;
      total -= q * (logits[r * V + v] - std::log(z));
    }
  }
  return total;
}

TEST(OpValue, CrossEntropyMatchesHandComputation) {
  Device& dev = cpu_device();
  const int V = 3;
  std::vector<float> logits = {1, 2, 3, 0.5f, -1, 0, 7, 7, 7};
  std::vector<int32_t> t = {2, 0, 1};
  for (float ls : {0.0f, 0.1f}) {
    Graph g(dev, false, 1);
    Var x = g.leaf(Tensor::from_host(dev, {3, V}, logits));
    Var loss = ops::cross_entropy(x, Tensor::from_host_ids(dev, {3}, t), ls, /*pad_id=*/1);
    EXPECT_EQ(loss.shape().rank(), 0);
    // Row 2's target is the pad id: only rows 0 and 1 count.
    EXPECT_NEAR(loss.value().to_host()[0], reference_ce(logits, t, V, ls, 1), 1e-5);
    g.backward(loss);
    std::vector<float> d = x.grad().to_host();
    for (int v = 0; v < V; ++v) EXPECT_EQ(d[2 * V + v], 0.0f);  // no gradient on the pad row
  }
  // Without smoothing, row 0 by hand: log(e + e^2 + e^3) - 3.
  Graph g(dev, false, 1);
  Var x = g.constant(Tensor::from_host(dev, {1, V}, {1, 2, 3}));
  EXPECT_NEAR(ops::cross_entropy(x, Tensor::from_host_ids(dev, {1}, {2}), 0.0f, -1)
                  .value()
                  .to_host()[0],
              std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3.0, 1e-6);
}

TEST(OpValue, CrossEntropyRejectsBadTargets) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var x = g.leaf(random_tensor(dev, {2, 4}, 1));
  EXPECT_THROW(ops::cross_entropy(x, Tensor::from_host_ids(dev, {2}, {0, 4}), 0.1f, 0),
               std::out_of_range);
  EXPECT_THROW(ops::cross_entropy(x, Tensor::from_host_ids(dev, {3}, {0, 1, 2}), 0.1f, 0),
               std::invalid_argument);
}

TEST(GradCheck, CrossEntropy) {
  Device& dev = cpu_device();
  Tensor t = Tensor::from_host_ids(dev, {4}, {2, 0, 4, 1});
  gradcheck(dev, {random_tensor(dev, {4, 5}, 1, 2.0f)}, [=](Graph&, const std::vector<Var>& x) {
    return ops::cross_entropy(x[0], t, 0.0f, -1);
  });
}

TEST(GradCheck, CrossEntropyLabelSmoothing) {
  Device& dev = cpu_device();
  Tensor t = Tensor::from_host_ids(dev, {2, 3}, {2, 0, 4, 0, 3, 0});  // pad id 0: three pad rows
  gradcheck(dev, {random_tensor(dev, {2, 3, 5}, 1, 2.0f)}, [=](Graph&, const std::vector<Var>& x) {
    return ops::cross_entropy(x[0], t, 0.1f, 0);
  });
}

}  // namespace
}  // namespace sl
