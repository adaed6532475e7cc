// Tensor views, the parameter arena's flat layout and the counter RNG's determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "common/counter_rng.h"
#include "tensor/parameter_arena.h"
#include "tensor/tensor.h"

namespace sl {
namespace {

TEST(TensorView, ViewAndSliceViewShareMemory) {
  Device& dev = cpu_device();
  Tensor t = Tensor::from_host(dev, {2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor v = t.view(Shape{3, 2});
  EXPECT_EQ(v.f32(), t.f32());
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  EXPECT_EQ(v.shape().rows(), 3);
  Tensor s = t.slice_view(2, Shape{2, 2});
  EXPECT_EQ(s.f32(), t.f32() + 2);
  EXPECT_EQ(s.to_host(), (std::vector<float>{2, 3, 4, 5}));
  s.fill(9.0f);
  EXPECT_EQ(t.to_host(), (std::vector<float>{0, 1, 9, 9, 9, 9}));
  EXPECT_THROW(t.view(Shape{4}), std::invalid_argument);
  EXPECT_THROW(t.slice_view(3, Shape{4}), std::invalid_argument);
}

TEST(TensorView, CopyFromAndDtypes) {
  Device& dev = cpu_device();
  Tensor a = Tensor::from_host(dev, {4}, {1, 2, 3, 4});
  Tensor b = Tensor::zeros(dev, {2, 2});
  b.copy_from(a);
  EXPECT_EQ(b.to_host(), a.to_host());
  Tensor ids = Tensor::from_host_ids(dev, {2}, {7, -1});
  EXPECT_EQ(ids.to_host_ids(), (std::vector<int32_t>{7, -1}));
  EXPECT_THROW(ids.f32(), std::logic_error);
  EXPECT_THROW(a.i32(), std::logic_error);
  EXPECT_THROW(b.copy_from(ids), std::invalid_argument);
  EXPECT_THROW(Tensor::from_host(dev, {3}, {1, 2}), std::invalid_argument);
}

TEST(TensorParameterArena, FlatAlignedLayout) {
  Device& dev = cpu_device();
  ParameterArena arena(dev);
  EXPECT_EQ(arena.declare("enc/w", Shape{3, 5}), 0);
  EXPECT_EQ(arena.declare("enc/b", Shape{5}), 1);
  EXPECT_EQ(arena.declare("dec/w", Shape{20}), 2);
  EXPECT_THROW(arena.declare("enc/b", Shape{1}), std::logic_error);
  arena.allocate();
  EXPECT_THROW(arena.declare("late", Shape{1}), std::logic_error);
  EXPECT_EQ(arena.offset(0), 0);
  EXPECT_EQ(arena.offset(1), 16);
  EXPECT_EQ(arena.offset(2), 32);
  EXPECT_EQ(arena.size(), 64u);
  EXPECT_EQ(arena.index_of("dec/w"), 2);
  EXPECT_EQ(arena.index_of("nope"), -1);
  EXPECT_EQ(arena.name_at(0), "enc/w");
  EXPECT_EQ(arena.name_at(17), "enc/b");
  EXPECT_EQ(arena.name_at(63), "dec/w");
  // Values and gradients are views into the two flat vectors, zero after allocate().
  EXPECT_EQ(arena.value(1).f32(), arena.values().f32() + 16);
  EXPECT_EQ(arena.grad(2).f32(), arena.grads().f32() + 32);
  EXPECT_EQ(arena.grad(2).shape(), (Shape{20}));
  for (float v : arena.values().to_host()) EXPECT_EQ(v, 0.0f);
  arena.grad(1).fill(2.0f);
  std::vector<float> g = arena.grads().to_host();
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i], i >= 16 && i < 21 ? 2.0f : 0.0f) << i;
  arena.zero_grads();
  for (float v : arena.grads().to_host()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorCounterRng, DeterministicAndPositionable) {
  CounterRng a(5, 2), b(5, 2), c(5, 3), d(6, 2);
  std::vector<float> va, vb, vc, vd;
  for (int i = 0; i < 100; ++i) {
    va.push_back(a.uniform());
    vb.push_back(b.uniform());
    vc.push_back(c.uniform());
    vd.push_back(d.uniform());
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
  EXPECT_NE(va, vd);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(va[i], counter_uniform(5, 2, i));
  CounterRng e(5, 2);
  e.set_position(40);
  EXPECT_EQ(e.uniform(), va[40]);
  EXPECT_EQ(e.position(), 41u);
}

TEST(TensorCounterRng, UniformAndNormalMoments) {
  CounterRng rng(9, 0);
  const int n = 200000;
  double s = 0, s2 = 0, ns = 0, ns2 = 0;
  for (int i = 0; i < n; ++i) {
    const float u = rng.uniform();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    s += u;
    s2 += u * u;
  }
  for (int i = 0; i < n; ++i) {
    const float x = rng.normal();
    ASSERT_TRUE(std::isfinite(x));
    ns += x;
    ns2 += x * x;
  }
  EXPECT_NEAR(s / n, 0.5, 0.005);
  EXPECT_NEAR(s2 / n - 0.25, 1.0 / 12, 0.002);
  EXPECT_NEAR(ns / n, 0.0, 0.01);
  EXPECT_NEAR(ns2 / n, 1.0, 0.02);
}

}  // namespace
}  // namespace sl
