// Layout kernels: copy_block, permute4, embedding and its deterministic scatter-add.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

using CudaLayout = CudaVsCpu;

TEST_F(CudaLayout, CopyBlockIntoAndOutOfWiderRows) {
  const int rows = 41, width = 19;
  const int64_t src_ld = 31, dst_ld = 57;
  for (bool acc : {false, true}) {
    Pair src = random_pair(size_t(rows) * src_ld, 1), dst = random_pair(size_t(rows) * dst_ld, 2);
    on_both([&](Device& d, int s) { d.copy_block(rows, width, src.f(s) + 5, src_ld, dst.f(s) + 11, dst_ld, acc); });
    if (acc)
      expect_close(dst, "copy_block acc", 1e-6f, 0.0f);
    else
      expect_same_bits(dst, "copy_block");
  }
}

TEST_F(CudaLayout, CopyBlockWithSourceStrideZeroRepeatsARow) {  // ops::linear's bias preset
  const int rows = 300, width = 77;
  Pair src = random_pair(size_t(width), 1), dst = random_pair(size_t(rows) * width, 2);
  on_both([&](Device& d, int s) { d.copy_block(rows, width, src.f(s), 0, dst.f(s), width, false); });
  expect_same_bits(dst, "copy_block src_ld 0");
}

TEST_F(CudaLayout, Permute4AllPermutations) {
  const int dims[4] = {3, 5, 4, 7};
  const size_t n = 3 * 5 * 4 * 7;
  int perm[4] = {0, 1, 2, 3};
  Pair x = random_pair(n, 3);
  do {
    const std::string what = "permute4 " + std::to_string(perm[0]) + std::to_string(perm[1]) +
                             std::to_string(perm[2]) + std::to_string(perm[3]);
    Pair y = random_pair(n, 4);
    on_both([&](Device& d, int s) { d.permute4(dims, perm, x.f(s), y.f(s), false); });
    expect_same_bits(y, what);
    on_both([&](Device& d, int s) { d.permute4(dims, perm, x.f(s), y.f(s), true); });
    expect_close(y, what + " accumulate", 1e-6f, 0.0f);
  } while (std::next_permutation(perm, perm + 4));
}

TEST_F(CudaLayout, EmbeddingGatherIsExact) {
  const int vocab = 1000, dim = 77, n = 513;
  Pair table = random_pair(size_t(vocab) * dim, 5), y = random_pair(size_t(n) * dim, 6);
  Pair ids = pair_ids(random_ids(n, 7, vocab));
  on_both([&](Device& d, int s) { d.embedding(n, dim, table.f(s), ids.i(s), y.f(s)); });
  expect_same_bits(y, "embedding");
}

// Repeated ids sum in token order on both backends, so the results agree bit for bit.
TEST_F(CudaLayout, EmbeddingBackwardIsExactWithRepeatedIds) {
  const int shapes[][3] = {{50, 64, 2000}, {7, 600, 300}, {1000, 33, 97}, {3, 1, 5}};
  for (const auto& sh : shapes) {
    const int vocab = sh[0], dim = sh[1], n = sh[2];
    std::vector<int32_t> id_values = random_ids(n, 8, vocab);
    for (int i = 0; i < n; i += 3) id_values[i] = 1;  // one very frequent id (like padding)
    Pair ids = pair_ids(id_values);
    Pair dy = random_pair(size_t(n) * dim, 9), dtable = random_pair(size_t(vocab) * dim, 10);
    on_both([&](Device& d, int s) { d.embedding_backward(n, dim, dy.f(s), ids.i(s), dtable.f(s)); });
    expect_same_bits(dtable, "embedding_backward vocab=" + std::to_string(vocab) + " dim=" +
                                 std::to_string(dim) + " n=" + std::to_string(n));
  }
}

}  // namespace
}  // namespace sl::cuda_test
