// gemm, gemm_batched and gemm_grid against a naive triple loop, for every transpose combination.
#include "tensor/cpu/blas_library.h"
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "kernel_test_util.h"

namespace sl {
namespace {

using testing::on_device;
using testing::random_values;

// C = alpha op(A) op(B) + beta C, row-major, A stored [M,K] or [K,M], B [K,N] or [N,K].
std::vector<float> naive_gemm(bool ta, bool tb, int M, int N, int K, float alpha,
                              const std::vector<float>& A, const std::vector<float>& B, float beta,
                              std::vector<float> C) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += static_cast<double>(ta ? A[k * M + m] : A[m * K + k]) *
             (tb ? B[n * K + k] : B[k * N + n]);
      C[m * N + n] = static_cast<float>(alpha * s + beta * C[m * N + n]);
    }
  return C;
}

class KernelGemm : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(KernelGemm, MatchesNaive) {
  const auto [ta, tb] = GetParam();
  Device& dev = cpu_device();
  const int M = 7, N = 5, K = 9;
  std::vector<float> A = random_values(M * K, 1), B = random_values(K * N, 2),
                     C = random_values(M * N, 3);
  Tensor a = on_device(dev, A), b = on_device(dev, B), c = on_device(dev, C);
  dev.gemm(ta, tb, M, N, K, 0.5f, a.f32(), b.f32(), 2.0f, c.f32());
  std::vector<float> ref = naive_gemm(ta, tb, M, N, K, 0.5f, A, B, 2.0f, C), got = c.to_host();
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-5) << i;
}

TEST_P(KernelGemm, BatchedMatchesNaive) {
  const auto [ta, tb] = GetParam();
  Device& dev = cpu_device();
  const int M = 3, N = 4, K = 6, batch = 5;
  // Strides larger than the matrices: batches may sit in a bigger buffer.
  const int sa = M * K + 2, sb = K * N + 1, sc = M * N + 3;
  std::vector<float> A = random_values(sa * batch, 1), B = random_values(sb * batch, 2),
                     C = random_values(sc * batch, 3);
  Tensor a = on_device(dev, A), b = on_device(dev, B), c = on_device(dev, C);
  dev.gemm_batched(ta, tb, M, N, K, 1.0f, a.f32(), sa, b.f32(), sb, 1.0f, c.f32(), sc, batch);
  std::vector<float> got = c.to_host();
  for (int i = 0; i < batch; ++i) {
    std::vector<float> Ai(A.begin() + i * sa, A.begin() + i * sa + M * K);
    std::vector<float> Bi(B.begin() + i * sb, B.begin() + i * sb + K * N);
    std::vector<float> Ci(C.begin() + i * sc, C.begin() + i * sc + M * N);
    std::vector<float> ref = naive_gemm(ta, tb, M, N, K, 1.0f, Ai, Bi, 1.0f, Ci);
    for (int j = 0; j < M * N; ++j) EXPECT_NEAR(got[i * sc + j], ref[j], 1e-5);
    for (int j = M * N; j < sc; ++j) EXPECT_EQ(got[i * sc + j], C[i * sc + j]);  // untouched
  }
}

// gemm_grid: attention heads in place. A is a [2, 6, 3 * 4] activation (outer 2, inner
// heads 3, rows of 12 floats), B a [2, 3, 4, 6] block tensor, C written into another
// activation; every product against the naive loop on its gathered copy, and every element
// outside the written heads left as it was.
TEST_P(KernelGemm, GridMatchesNaiveOnGatheredCopies) {
  const auto [ta, tb] = GetParam();
  Device& dev = cpu_device();
  const int outer = 2, heads = 3, Dh = 4, T = 6;  // op(A) [T, Dh], op(B) [Dh, T], C [T, T]
  const int M = T, N = T, K = Dh;
  const int A_rows = ta ? K : M, A_cols = ta ? M : K, B_rows = tb ? N : K, B_cols = tb ? K : N;
  // A: heads side by side in rows of heads * A_cols; B: contiguous blocks; C: heads side by side.
  const MatrixGrid ga{int64_t(A_rows) * heads * A_cols, A_cols, heads * A_cols};
  const MatrixGrid gb{int64_t(heads) * B_rows * B_cols, int64_t(B_rows) * B_cols, B_cols};
  const MatrixGrid gc{int64_t(M) * heads * N, N, heads * N};
  std::vector<float> A = random_values(outer * A_rows * heads * A_cols, 1),
                     B = random_values(outer * heads * B_rows * B_cols, 2),
                     C = random_values(outer * M * heads * N, 3);
  Tensor a = on_device(dev, A), b = on_device(dev, B), c = on_device(dev, C);
  dev.gemm_grid(ta, tb, M, N, K, 0.5f, a.f32(), ga, b.f32(), gb, 1.0f, c.f32(), gc, outer, heads);
  std::vector<float> got = c.to_host();
  auto gather = [](const std::vector<float>& X, MatrixGrid g, int o, int i, int rows, int cols) {
    std::vector<float> m;
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < cols; ++k) m.push_back(X[o * g.outer + i * g.inner + r * g.ld + k]);
    return m;
  };
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < heads; ++i) {
      std::vector<float> ref = naive_gemm(ta, tb, M, N, K, 0.5f, gather(A, ga, o, i, A_rows, A_cols),
                                          gather(B, gb, o, i, B_rows, B_cols), 1.0f,
                                          gather(C, gc, o, i, M, N));
      std::vector<float> out = gather(got, gc, o, i, M, N);
      for (size_t j = 0; j < ref.size(); ++j) EXPECT_NEAR(out[j], ref[j], 1e-5) << o << " " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernel, KernelGemm,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

TEST(Kernel, GemmBetaZeroIgnoresGarbage) {
  Device& dev = cpu_device();
  std::vector<float> A = random_values(4, 1), B = random_values(4, 2);
  Tensor a = on_device(dev, A), b = on_device(dev, B);
  Tensor c = on_device(dev, std::vector<float>(4, std::nanf("")));
  dev.gemm(false, false, 2, 2, 2, 1.0f, a.f32(), b.f32(), 0.0f, c.f32());
  for (float v : c.to_host()) EXPECT_FALSE(std::isnan(v));
}

// K == 1 products (outer products) take the CPU backend's own kernel: the same bits as
// OpenBLAS's sgemm for every transpose pair and beta 0 / 1, garbage ignored when beta is 0.
TEST(Kernel, OuterProductGemmEqualsBlasBits) {
  Device& dev = cpu_device();
  const int M = 700, N = 300;  // above the threading grain
  const std::vector<float> A = random_values(M, 3, 5.0f), B = random_values(N, 4, 3.0f),
                           C0 = random_values(size_t(M) * N, 5);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (float beta : {0.0f, 1.0f}) {
        std::vector<float> want = beta == 0.0f ? std::vector<float>(C0.size(), 0.0f) : C0;
        blas::sgemm(ta, tb, M, N, 1, 1.0f, A.data(), ta ? M : 1, B.data(), tb ? 1 : N, beta,
                    want.data(), N);
        Tensor a = on_device(dev, A), b = on_device(dev, B);
        Tensor c = on_device(dev, beta == 0.0f ? std::vector<float>(C0.size(), std::nanf("")) : C0);
        dev.gemm(ta, tb, M, N, 1, 1.0f, a.f32(), b.f32(), beta, c.f32());
        const std::vector<float> got = c.to_host();
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
            << "ta " << ta << " tb " << tb << " beta " << beta;
      }
}

}  // namespace
}  // namespace sl
