// Gradient checks of the shape and layout ops.
#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, Reshape) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {2, 6}, 1)}, [](Graph&, const std::vector<Var>& x) {
    // Squared so the upstream gradient is not constant, reshaped twice.
    Var y = ops::reshape(x[0], Shape{3, 4});
    return ops::reshape(ops::mul(y, y), Shape{4, 3});
  });
}

TEST(GradCheck, ReshapeSharesMemory) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.leaf(random_tensor(dev, {2, 6}, 1));
  Var r = ops::reshape(a, Shape{3, 2, 2});
  EXPECT_EQ(r.value().f32(), a.value().f32());
  EXPECT_EQ(r.shape(), (Shape{3, 2, 2}));
  EXPECT_THROW(ops::reshape(a, Shape{5}), std::invalid_argument);
}

class PermuteGrad : public ::testing::TestWithParam<std::vector<int>> {};

TEST_P(PermuteGrad, GradCheck) {
  Device& dev = cpu_device();
  const std::vector<int> perm = GetParam();
  gradcheck(dev, {random_tensor(dev, {2, 3, 4, 5}, 1)},
            [=](Graph&, const std::vector<Var>& x) { return ops::permute(x[0], perm); });
}

INSTANTIATE_TEST_SUITE_P(GradCheck, PermuteGrad,
                         ::testing::Values(std::vector<int>{0, 2, 1, 3}, std::vector<int>{0, 1, 3, 2},
                                           std::vector<int>{3, 0, 2, 1},
                                           std::vector<int>{1, 2, 3, 0}));

TEST(OpValue, PermuteMatchesIndexing) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.constant(random_tensor(dev, {2, 3, 4, 5}, 1));
  Var y = ops::permute(a, {2, 0, 3, 1});
  ASSERT_EQ(y.shape(), (Shape{4, 2, 5, 3}));
  std::vector<float> x = a.value().to_host(), yh = y.value().to_host();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 5; ++l)
          EXPECT_EQ(yh[((k * 2 + i) * 5 + l) * 3 + j], x[((i * 3 + j) * 4 + k) * 5 + l]);
  EXPECT_THROW(ops::permute(a, {0, 1, 1, 2}), std::invalid_argument);
}

TEST(GradCheck, Transpose2d) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 5}, 1)}, [](Graph&, const std::vector<Var>& x) {
    Var t = ops::transpose2d(x[0]);
    EXPECT_EQ(t.shape(), (Shape{5, 3}));
    return t;
  });
}

class ConcatGrad : public ::testing::TestWithParam<int> {};

TEST_P(ConcatGrad, GradCheck) {
  Device& dev = cpu_device();
  const int axis = GetParam();
  const int ax = axis < 0 ? axis + 3 : axis;
  Shape s1{2, 3, 4}, s2{2, 3, 4};
  s2[ax] = 1;
  gradcheck(dev, {random_tensor(dev, s1, 1), random_tensor(dev, s2, 2), random_tensor(dev, s1, 3)},
            [=](Graph&, const std::vector<Var>& x) { return ops::concat(x, axis); });
}

INSTANTIATE_TEST_SUITE_P(GradCheck, ConcatGrad, ::testing::Values(0, 1, 2, -1));

TEST(OpValue, ConcatAndSliceRoundTrip) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.constant(Tensor::from_host(dev, {2, 2}, {1, 2, 3, 4}));
  Var b = g.constant(Tensor::from_host(dev, {2, 1}, {5, 6}));
  Var c = ops::concat({a, b}, 1);
  EXPECT_EQ(c.value().to_host(), (std::vector<float>{1, 2, 5, 3, 4, 6}));
  EXPECT_EQ(ops::slice(c, 1, 1, 2).value().to_host(), (std::vector<float>{2, 5, 4, 6}));
  EXPECT_EQ(ops::slice(c, 0, 1, 1).value().to_host(), (std::vector<float>{3, 4, 6}));
  EXPECT_THROW(ops::slice(c, 1, 2, 2), std::invalid_argument);
  EXPECT_THROW(ops::concat({a, g.constant(Tensor::zeros(dev, {3, 1}))}, 1), std::invalid_argument);
}

TEST(GradCheck, Slice) {
  Device& dev = cpu_device();
  for (int axis : {0, 1, 2})
    gradcheck(dev, {random_tensor(dev, {3, 4, 5}, 1)}, [=](Graph&, const std::vector<Var>& x) {
      return ops::slice(x[0], axis, 1, 2);
    });
}

TEST(GradCheck, Embedding) {
  Device& dev = cpu_device();
  Tensor ids = Tensor::from_host_ids(dev, {2, 3}, {1, 4, 1, 0, 4, 4});  // repeats accumulate
  gradcheck(dev, {random_tensor(dev, {5, 3}, 1)}, [=](Graph&, const std::vector<Var>& x) {
    Var y = ops::embedding(x[0], ids);
    EXPECT_EQ(y.shape(), (Shape{2, 3, 3}));
    return y;
  });
}

TEST(OpValue, EmbeddingRejectsOutOfRangeIds) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var t = g.leaf(random_tensor(dev, {5, 3}, 1));
  EXPECT_THROW(ops::embedding(t, Tensor::from_host_ids(dev, {2}, {0, 5})), std::out_of_range);
  EXPECT_THROW(ops::embedding(t, Tensor::from_host_ids(dev, {1}, {-1})), std::out_of_range);
}

}  // namespace
}  // namespace sl
