// Gradient checks of matmul, linear, bmm and the in-place attention head products.
#include <cstring>

#include "gradcheck.h"

namespace sl {
namespace {

using testing::gradcheck;
using testing::random_tensor;

TEST(GradCheck, Matmul) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {4, 5}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::matmul(x[0], x[1]); });
}

TEST(GradCheck, MatmulTransB) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {3, 4}, 1), random_tensor(dev, {5, 4}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::matmul(x[0], x[1], true); });
}

TEST(GradCheck, MatmulRank3Rows) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {2, 3, 4}, 1), random_tensor(dev, {4, 2}, 2)},
            [](Graph&, const std::vector<Var>& x) { return ops::matmul(x[0], x[1]); });
}

TEST(GradCheck, Linear) {
  Device& dev = cpu_device();
  gradcheck(
      dev,
      {random_tensor(dev, {2, 3, 4}, 1), random_tensor(dev, {4, 5}, 2), random_tensor(dev, {5}, 3)},
      [](Graph&, const std::vector<Var>& x) { return ops::linear(x[0], x[1], x[2]); });
}

TEST(GradCheck, LinearTransBOneRow) {
  Device& dev = cpu_device();  // one row: the bias gradient is dy itself
  gradcheck(
      dev,
      {random_tensor(dev, {1, 4}, 1), random_tensor(dev, {5, 4}, 2), random_tensor(dev, {5}, 3)},
      [](Graph&, const std::vector<Var>& x) { return ops::linear(x[0], x[1], x[2], true); });
}

// The forward against a naive x W + b in double, at a K long enough for the BLAS to split it
// into several blocks (where the bias joins the sum at another point than add(matmul) would).
TEST(OpValue, LinearMatchesNaiveProductPlusBias) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  const int M = 7, K = 1500, N = 9;
  Var a = g.leaf(random_tensor(dev, {M, K}, 1)), w = g.leaf(random_tensor(dev, {K, N}, 2)),
      b = g.leaf(random_tensor(dev, {N}, 3));
  std::vector<float> y = ops::linear(a, w, b).value().to_host();
  std::vector<float> ref = ops::add(ops::matmul(a, w), b).value().to_host();
  std::vector<float> ah = a.value().to_host(), wh = w.value().to_host(), bh = b.value().to_host();
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = bh[n];
      for (int k = 0; k < K; ++k) s += double(ah[m * K + k]) * wh[k * N + n];
      EXPECT_NEAR(y[m * N + n], s, 1e-3) << m << "," << n;
      EXPECT_NEAR(y[m * N + n], ref[m * N + n], 1e-3) << m << "," << n;
    }
  EXPECT_THROW(ops::linear(a, w, a), std::invalid_argument);  // bias of the wrong shape
}

TEST(GradCheck, MatmulRejectsBadShapes) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.leaf(random_tensor(dev, {3, 4}, 1)), b = g.leaf(random_tensor(dev, {3, 5}, 2));
  EXPECT_THROW(ops::matmul(a, b), std::invalid_argument);
}

// All four transpose combinations with two batch dims.
class BmmGrad : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(BmmGrad, GradCheck) {
  const bool ta = GetParam().first, tb = GetParam().second;
  Device& dev = cpu_device();
  const int M = 3, K = 4, N = 2;
  Shape sa = ta ? Shape{2, 2, K, M} : Shape{2, 2, M, K};
  Shape sb = tb ? Shape{2, 2, N, K} : Shape{2, 2, K, N};
  gradcheck(dev, {random_tensor(dev, sa, 1), random_tensor(dev, sb, 2)},
            [=](Graph&, const std::vector<Var>& x) {
              Var y = ops::bmm(x[0], x[1], ta, tb);
              EXPECT_EQ(y.shape(), (Shape{2, 2, M, N}));
              return y;
            });
}

INSTANTIATE_TEST_SUITE_P(GradCheck, BmmGrad,
                         ::testing::Values(std::make_pair(false, false),
                                           std::make_pair(false, true), std::make_pair(true, false),
                                           std::make_pair(true, true)));

TEST(GradCheck, BmmForwardMatchesPerBatchMatmul) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var a = g.leaf(random_tensor(dev, {3, 2, 4}, 1)), b = g.leaf(random_tensor(dev, {3, 5, 4}, 2));
  std::vector<float> y = ops::bmm(a, b, false, true).value().to_host();
  std::vector<float> ah = a.value().to_host(), bh = b.value().to_host();
  for (int i = 0; i < 3; ++i)
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 5; ++n) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += ah[(i * 2 + m) * 4 + k] * bh[(i * 5 + n) * 4 + k];
        EXPECT_NEAR(y[(i * 2 + m) * 5 + n], s, 1e-5);
      }
  EXPECT_THROW(ops::bmm(a, b), std::invalid_argument);
}

// head_scores / head_context: finite differences, and the same bits (forward and every
// gradient) as the split-heads + bmm + merge-heads graph they replace in the Transformer.
Var split(const Var& x, int heads) {
  const Shape& s = x.shape();
  return ops::permute(ops::reshape(x, Shape{s[0], s[1], heads, s[2] / heads}), {0, 2, 1, 3});
}
Var merge(const Var& x) {
  const Shape& s = x.shape();
  return ops::reshape(ops::permute(x, {0, 2, 1, 3}), Shape{s[0], s[2], s[1] * s[3]});
}

TEST(GradCheck, HeadScoresAndContext) {
  Device& dev = cpu_device();
  gradcheck(dev, {random_tensor(dev, {2, 3, 6}, 1), random_tensor(dev, {2, 4, 6}, 2)},
            [](Graph&, const std::vector<Var>& x) {
              Var y = ops::head_scores(x[0], x[1], 3);
              EXPECT_EQ(y.shape(), (Shape{2, 3, 3, 4}));
              return y;
            });
  gradcheck(dev, {random_tensor(dev, {2, 3, 3, 4}, 3), random_tensor(dev, {2, 4, 6}, 4)},
            [](Graph&, const std::vector<Var>& x) {
              Var y = ops::head_context(x[0], x[1], 3);
              EXPECT_EQ(y.shape(), (Shape{2, 3, 6}));
              return y;
            });
}

TEST(HeadProducts, SameBitsAsSplitBmmMerge) {
  Device& dev = cpu_device();
  const int B = 3, T = 7, S = 9, H = 4, D = 32;
  std::vector<std::vector<float>> outs[2];
  for (int fused = 0; fused < 2; ++fused) {
    Graph g(dev, false, 1);
    Var q = g.leaf(random_tensor(dev, {B, T, D}, 5)), k = g.leaf(random_tensor(dev, {B, S, D}, 6)),
        v = g.leaf(random_tensor(dev, {B, S, D}, 7));
    Var w = fused ? ops::head_scores(q, k, H) : ops::bmm(split(q, H), split(k, H), false, true);
    w = ops::softmax(w);
    Var y = fused ? ops::head_context(w, v, H) : merge(ops::bmm(w, split(v, H)));
    g.backward(ops::sum(ops::mul(y, g.constant(random_tensor(dev, y.shape(), 8)))));
    outs[fused] = {y.value().to_host(), q.grad().to_host(), k.grad().to_host(),
                   v.grad().to_host()};
  }
  const char* names[] = {"y", "dq", "dk", "dv"};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(0, std::memcmp(outs[0][i].data(), outs[1][i].data(), outs[0][i].size() * 4))
        << names[i] << " differs from the split + bmm + merge graph";
}

TEST(HeadProducts, ShapeErrorsThrow) {
  Device& dev = cpu_device();
  Graph g(dev, false, 1);
  Var q = g.leaf(random_tensor(dev, {2, 3, 6}, 1)), k5 = g.leaf(random_tensor(dev, {2, 4, 5}, 2));
  EXPECT_THROW(ops::head_scores(q, k5, 3), std::invalid_argument);  // widths differ
  EXPECT_THROW(ops::head_scores(q, q, 4), std::invalid_argument);   // 4 does not divide 6
  Var w = g.leaf(random_tensor(dev, {2, 2, 3, 3}, 3));
  EXPECT_THROW(ops::head_context(w, q, 3), std::invalid_argument);  // 2 heads in w
}

}  // namespace
}  // namespace sl
