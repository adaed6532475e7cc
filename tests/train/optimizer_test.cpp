// train.optimizer: the update rules against their formulas, and parameter_views.
#include <gtest/gtest.h>

#include <cmath>

#include "tensor/device_registry.h"
#include "train/adam.h"
#include "train/parameter_views.h"
#include "train/sign_descent.h"
#include "train/train_config.h"

namespace sl {
namespace {

Tensor tensor_of(const std::vector<float>& v) {
  Tensor t = Tensor::zeros(device_by_name("cpu"), Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.f32());
  return t;
}

TEST(Optimizer, SignAndSgdFollowTheirFormulasWithDecoupledWeightDecay) {
  const std::vector<float> theta = {1.0f, -2.0f, 0.5f, 3.0f, -0.25f};
  const std::vector<float> U = {0.3f, -1e-9f, 0.0f, -0.0f, 7.0f};
  for (bool sign : {true, false})
    for (float wd : {0.0f, 0.1f}) {
      TrainConfig c;
      c.optimizer = sign ? "sign" : "sgd";
      c.weight_decay = wd;
      auto opt = make_optimizer(c, device_by_name("cpu"), theta.size());
      Tensor p = tensor_of(theta), g = tensor_of(U);
      const float lr = 0.01f;
      opt->step(p, g, lr);
      for (size_t i = 0; i < theta.size(); ++i) {
        const float s = !sign ? U[i] : U[i] > 0 ? 1.0f : U[i] < 0 ? -1.0f : 0.0f;
        EXPECT_EQ(theta[i] * (1.0f - lr * wd) - lr * s, p.f32()[i])
            << sign << " " << wd << " " << i;
      }
      EXPECT_TRUE(opt->moments().empty());
      EXPECT_TRUE(opt->state_arrays().empty());
    }
}

TEST(Optimizer, SignKeepsANaNVisible) {
  SignDescent s(true, 0.0f);
  std::vector<float> p = {1.0f}, g = {std::nanf("")};
  s.step_host(p.data(), g.data(), 1, 0.1f);
  EXPECT_TRUE(std::isnan(p[0]));
}

TEST(Optimizer, AdamKeepsItsCheckpointNamesAndMoments) {
  TrainConfig c;
  auto opt = make_optimizer(c, device_by_name("cpu"), 3);
  ASSERT_EQ(2u, opt->moments().size());
  const auto arrays = opt->state_arrays();
  ASSERT_EQ(2u, arrays.size());
  EXPECT_EQ("adam_m", arrays[0].first);
  EXPECT_EQ("adam_v", arrays[1].first);
  Tensor p = tensor_of({1, 2, 3}), g = tensor_of({1, -1, 0});
  opt->step(p, g, 0.1f);
  EXPECT_EQ(1, opt->state_meta()["adam_steps"]);
  opt->restore_meta({{"adam_steps", 41}});
  EXPECT_EQ(41, dynamic_cast<Adam&>(*opt).steps());
}

TEST(ParameterViews, MatricesAsTheyAreVectorsAsColumnsHigherRanksFlattened) {
  ParameterArena a(device_by_name("cpu"));
  a.declare("w", Shape{3, 5});
  a.declare("b", Shape{5});
  a.declare("k", Shape{2, 3, 4});
  a.allocate();
  const auto v = parameter_views(a);
  ASSERT_EQ(3u, v.size());
  EXPECT_EQ(0u, v[0].offset);
  EXPECT_EQ(3u, v[0].rows);
  EXPECT_EQ(5u, v[0].cols);
  EXPECT_EQ(size_t(a.offset(1)), v[1].offset);  // after the alignment padding
  EXPECT_EQ(5u, v[1].rows);
  EXPECT_EQ(1u, v[1].cols);
  EXPECT_EQ(2u, v[2].rows);
  EXPECT_EQ(12u, v[2].cols);
  EXPECT_NO_THROW(check_views(v, a.size()));
  EXPECT_THROW(check_views(v, v[2].offset + 23), std::invalid_argument);  // cuts the last one
}

}  // namespace
}  // namespace sl
