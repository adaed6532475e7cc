#pragma once
// Finite-difference gradient checks. The op under test runs in float32 on the device; the
// numerical derivative uses central differences of a float64 sum of the output weighted by a
// fixed random cotangent, so the check fails when a backward is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "autograd/graph.h"
#include "autograd/ops.h"
#include "common/counter_rng.h"

namespace sl::testing {

inline Tensor random_tensor(Device& dev, const Shape& s, uint64_t stream, float scale = 1.0f) {
  CounterRng rng(1234, stream);
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (auto& x : v) x = (rng.uniform() * 2.0f - 1.0f) * scale;
  return Tensor::from_host(dev, s, v);
}

// f builds the op from leaves; returns its output (any shape).
using BuildFn = std::function<Var(Graph&, const std::vector<Var>&)>;

// Checks d<w, f(x)>/dx for every input against central differences with step `eps`.
// Fails the current test with the input index, element and both values on mismatch.
inline void gradcheck(Device& dev, const std::vector<Tensor>& inputs, const BuildFn& f,
                      double rtol = 2e-2, double atol = 2e-3, float eps = 1e-2f) {
  // Cotangent w fixed by the output shape.
  auto weighted_sum = [&](const std::vector<Tensor>& xs, std::vector<Tensor>* grads) {
    Graph g(dev, /*dropout_enabled=*/true, /*seed=*/7);
    std::vector<Var> leaves;
    for (auto& x : xs) leaves.push_back(g.leaf(x));
    Var y = f(g, leaves);
    Tensor w = random_tensor(dev, y.shape(), 999);
    std::vector<float> yh = y.value().to_host(), wh = w.to_host();
    double s = 0;
    for (size_t i = 0; i < yh.size(); ++i) s += static_cast<double>(yh[i]) * wh[i];
    if (grads) {
      Var wv = g.constant(w);
      Var loss = ops::sum(ops::mul(y, wv));
      g.backward(loss);
      for (auto& l : leaves) grads->push_back(l.grad());
    }
    return s;
  };
  std::vector<Tensor> grads;
  weighted_sum(inputs, &grads);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<float> x0 = inputs[i].to_host();
    std::vector<float> analytic = grads[i].to_host();
    for (size_t e = 0; e < x0.size(); ++e) {
      auto eval_at = [&](float delta) {
        std::vector<Tensor> xs;
        for (size_t j = 0; j < inputs.size(); ++j) {
          std::vector<float> v = inputs[j].to_host();
          if (j == i) v[e] += delta;
          xs.push_back(Tensor::from_host(dev, inputs[j].shape(), v));
        }
        return weighted_sum(xs, nullptr);
      };
      double numeric = (eval_at(eps) - eval_at(-eps)) / (2.0 * eps);
      double diff = std::fabs(numeric - analytic[e]);
      ASSERT_LE(diff, atol + rtol * std::fabs(numeric))
          << "input " << i << " element " << e << ": analytic " << analytic[e] << " numeric "
          << numeric;
    }
  }
}

}  // namespace sl::testing
