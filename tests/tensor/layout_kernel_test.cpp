// permute4, copy_block and embedding gather / scatter-add against index arithmetic.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernel_test_util.h"

namespace sl {
namespace {

using testing::on_device;
using testing::random_values;

TEST(Kernel, Permute4AllPermutations) {
  Device& dev = cpu_device();
  const int dims[4] = {2, 3, 4, 5};
  std::vector<float> X = random_values(120, 1), Y0 = random_values(120, 2);
  Tensor x = on_device(dev, X);
  int perm[4] = {0, 1, 2, 3};
  int count = 0;
  do {
    for (bool acc : {false, true}) {
      Tensor y = on_device(dev, Y0);
      dev.permute4(dims, perm, x.f32(), y.f32(), acc);
      std::vector<float> got = y.to_host();
      int yd[4];
      for (int i = 0; i < 4; ++i) yd[i] = dims[perm[i]];
      int idx[4];  // index into x
      for (idx[0] = 0; idx[0] < 2; ++idx[0])
        for (idx[1] = 0; idx[1] < 3; ++idx[1])
          for (idx[2] = 0; idx[2] < 4; ++idx[2])
            for (idx[3] = 0; idx[3] < 5; ++idx[3]) {
              const int xi = ((idx[0] * 3 + idx[1]) * 4 + idx[2]) * 5 + idx[3];
              const int yi =
                  ((idx[perm[0]] * yd[1] + idx[perm[1]]) * yd[2] + idx[perm[2]]) * yd[3] +
                  idx[perm[3]];
              ASSERT_EQ(got[yi], X[xi] + (acc ? Y0[yi] : 0.0f));
            }
    }
    ++count;
  } while (std::next_permutation(perm, perm + 4));
  EXPECT_EQ(count, 24);
}

TEST(Kernel, CopyBlockStridedOverwriteAndAccumulate) {
  Device& dev = cpu_device();
  const int rows = 3, width = 4, src_ld = 6, dst_ld = 9;
  std::vector<float> S = random_values(rows * src_ld, 1), D0 = random_values(rows * dst_ld, 2);
  Tensor s = on_device(dev, S);
  for (bool acc : {false, true}) {
    Tensor d = on_device(dev, D0);
    dev.copy_block(rows, width, s.f32() + 1, src_ld, d.f32() + 2, dst_ld, acc);
    std::vector<float> got = d.to_host();
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < dst_ld; ++j) {
        const float expect = j >= 2 && j < 2 + width
                                 ? S[r * src_ld + 1 + j - 2] + (acc ? D0[r * dst_ld + j] : 0.0f)
                                 : D0[r * dst_ld + j];
        EXPECT_EQ(got[r * dst_ld + j], expect) << r << "," << j;
      }
  }
}

// src_ld 0 repeats one row: how ops::linear presets its output to the bias.
TEST(Kernel, CopyBlockWithSourceStrideZeroRepeatsARow) {
  Device& dev = cpu_device();
  const int rows = 37, width = 5;
  std::vector<float> B = random_values(width, 3);
  Tensor b = on_device(dev, B), d = Tensor::empty(dev, {rows, width});
  dev.copy_block(rows, width, b.f32(), 0, d.f32(), width, false);
  std::vector<float> got = d.to_host();
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < width; ++j) EXPECT_EQ(got[r * width + j], B[j]) << r << "," << j;
}

TEST(Kernel, EmbeddingGatherAndScatterAddInIndexOrder) {
  Device& dev = cpu_device();
  const int V = 4, D = 3, n = 6;
  std::vector<float> T = random_values(V * D, 1), DY = random_values(n * D, 2);
  std::vector<int32_t> ids = {3, 1, 3, 0, 3, 1};
  Tensor t = on_device(dev, T), dy = on_device(dev, DY);
  Tensor id = Tensor::from_host_ids(dev, {n}, ids);
  Tensor y = Tensor::empty(dev, {n, D});
  dev.embedding(n, D, t.f32(), id.i32(), y.f32());
  std::vector<float> got = y.to_host();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < D; ++j) EXPECT_EQ(got[i * D + j], T[ids[i] * D + j]);
  // Scatter-add: the float sums in index order, onto the existing table gradient.
  std::vector<float> ref = T;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < D; ++j) ref[ids[i] * D + j] += DY[i * D + j];
  dev.embedding_backward(n, D, dy.f32(), id.i32(), t.f32());
  EXPECT_EQ(t.to_host(), ref);  // bit-exact: same order every run
}

}  // namespace
}  // namespace sl
