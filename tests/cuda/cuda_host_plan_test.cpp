// The CUDA backend's host-side bookkeeping, checked without a GPU.
#include "tensor/cpu/blas_library.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/counter_rng.h"
#include "tensor/cuda/cublas_gemm_params.h"
#include "tensor/cuda/cuda_allocator.h"
#include "tensor/cuda/permute4_plan.h"

namespace sl {
namespace {

std::vector<float> values(size_t n, uint64_t stream) {
  CounterRng rng(5, stream);
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform() * 2.0f - 1.0f;
  return v;
}

// Row-major C = alpha op(A) op(B) + beta C by definition.
void reference_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                    const float* B, float beta, float* C) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
        const float a = ta ? A[k * M + i] : A[i * K + k];
        const float b = tb ? B[j * K + k] : B[k * N + j];
        s += double(a) * b;
      }
      C[i * N + j] = float(alpha * s + beta * C[i * N + j]);
    }
}

// cuBLAS's column-major sgemm through the host BLAS: a column-major m x n matrix with leading
// dimension ld is the row-major n x m one, so C^T = op2(Y)^T op1(X)^T is the row-major call
// with the operands and their transposes swapped.
void col_major_sgemm(bool t1, bool t2, int m, int n, int k, float alpha, const float* X, int ldx,
                     const float* Y, int ldy, float beta, float* C, int ldc) {
  blas::sgemm(t2, t1, n, m, k, alpha, Y, ldy, X, ldx, beta, C, ldc);
}

// Exactly the call CudaDevice::gemm makes, with host cblas standing in for cuBLAS: both
// are column-major BLAS with the same argument meanings.
void emulated_cublas_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A,
                          const float* B, float beta, float* C) {
  const CublasGemmParams p = cublas_gemm_params(ta, tb, M, N, K);
  col_major_sgemm(p.trans_first, p.trans_second, p.m, p.n, p.k, alpha, B, p.ld_first, A,
                  p.ld_second, beta, C, p.ldc);
}

void expect_near_rel(const std::vector<float>& want, const std::vector<float>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i]))) << "element " << i;
}

TEST(CublasGemmParams, RowMajorTrickMatchesDefinitionForAllTransposes) {
  const int shapes[][3] = {{7, 5, 3}, {1, 9, 4}, {6, 1, 8}, {4, 4, 1}, {33, 17, 65}};
  for (const auto& s : shapes)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const int M = s[0], N = s[1], K = s[2];
        SCOPED_TRACE(testing::Message() << "M=" << M << " N=" << N << " K=" << K << " ta=" << ta
                                        << " tb=" << tb);
        const std::vector<float> A = values(size_t(M) * K, 1), B = values(size_t(K) * N, 2);
        std::vector<float> want = values(size_t(M) * N, 3), got = want;
        reference_gemm(ta, tb, M, N, K, 0.75f, A.data(), B.data(), -0.5f, want.data());
        emulated_cublas_gemm(ta, tb, M, N, K, 0.75f, A.data(), B.data(), -0.5f, got.data());
        expect_near_rel(want, got);
      }
}

TEST(CublasGemmParams, SwapsOperandsAndSizes) {
  const CublasGemmParams p = cublas_gemm_params(true, false, 2, 3, 4, 100, 200);
  EXPECT_FALSE(p.trans_first);
  EXPECT_TRUE(p.trans_second);
  EXPECT_EQ(p.m, 3);
  EXPECT_EQ(p.n, 2);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.stride_first, 200);   // B's stride goes with the first operand
  EXPECT_EQ(p.stride_second, 100);
  EXPECT_EQ(p.ldc, 3);
}

TEST(CublasGemmParams, LeadingDimensionsStayValidForEmptyInnerSize) {
  const CublasGemmParams p = cublas_gemm_params(false, false, 3, 2, 0);
  EXPECT_GE(p.ld_first, 1);
  EXPECT_GE(p.ld_second, 1);
}

TEST(CublasGemmParams, BatchedStridesPairWithTheirOperands) {
  const int M = 3, N = 5, K = 4, batch = 3;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      // Padded strides, so a wrong pairing reads the wrong matrices.
      const long long sa = M * K + 2, sb = K * N + 7, sc = M * N + 1;
      const std::vector<float> A = values(size_t(sa) * batch, 4), B = values(size_t(sb) * batch, 5);
      std::vector<float> want = values(size_t(sc) * batch, 6), got = want;
      const CublasGemmParams p = cublas_gemm_params(ta, tb, M, N, K, sa, sb);
      for (int i = 0; i < batch; ++i) {
        reference_gemm(ta, tb, M, N, K, 1.0f, A.data() + i * sa, B.data() + i * sb, 0.0f,
                       want.data() + i * sc);
        col_major_sgemm(p.trans_first, p.trans_second, p.m, p.n, p.k, 1.0f,
                        B.data() + i * p.stride_first, p.ld_first, A.data() + i * p.stride_second,
                        p.ld_second, 0.0f, got.data() + i * sc, p.ldc);
      }
      expect_near_rel(want, got);
    }
}

TEST(Permute4Plan, SourceIndexMatchesNestedLoopsForAllPermutations) {
  const int dims[4] = {2, 3, 4, 5};
  int perm[4] = {0, 1, 2, 3};
  int count = 0;
  do {
    const Permute4Plan plan = make_permute4_plan(dims, perm);
    ASSERT_EQ(plan.total, 120);
    int64_t y = 0;
    int c[4];  // coordinates in y; x's coordinate along dim perm[k] is c[k]
    for (c[0] = 0; c[0] < dims[perm[0]]; ++c[0])
      for (c[1] = 0; c[1] < dims[perm[1]]; ++c[1])
        for (c[2] = 0; c[2] < dims[perm[2]]; ++c[2])
          for (c[3] = 0; c[3] < dims[perm[3]]; ++c[3], ++y) {
            int xc[4];
            for (int k = 0; k < 4; ++k) xc[perm[k]] = c[k];
            const int64_t x = ((int64_t(xc[0]) * dims[1] + xc[1]) * dims[2] + xc[2]) * dims[3] + xc[3];
            ASSERT_EQ(permute4_source(plan, y), x)
                << "perm " << perm[0] << perm[1] << perm[2] << perm[3] << " y " << y;
          }
    ++count;
  } while (std::next_permutation(perm, perm + 4));
  EXPECT_EQ(count, 24);
}

TEST(Permute4Plan, IdentityIsTheIdentityAndSizeOneDimsAreHarmless) {
  const int dims[4] = {1, 7, 1, 3}, id[4] = {0, 1, 2, 3}, swap[4] = {2, 3, 0, 1};
  const Permute4Plan a = make_permute4_plan(dims, id), b = make_permute4_plan(dims, swap);
  for (int64_t i = 0; i < a.total; ++i) EXPECT_EQ(permute4_source(a, i), i);
  // y = [1, 3, 1, 7]: y index (0, j, 0, i) reads x (0, i, 0, j).
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(permute4_source(b, j * 7 + i), i * 3 + j);
}

TEST(CachedBlockSize, CoversTheRequestWithAtMostAQuarterWaste) {
  size_t previous = 0;
  for (size_t bytes = 1; bytes < (size_t(1) << 22); bytes = bytes * 5 / 4 + 1) {
    const size_t s = cached_block_size(bytes);
    EXPECT_GE(s, bytes);
    EXPECT_GE(s, previous);  // monotonic
    EXPECT_EQ(s % 128, 0u);
    if (bytes > 512) {
      EXPECT_LE(s, bytes + bytes / 4) << bytes;
    }
    previous = s;
  }
  EXPECT_EQ(cached_block_size(512), 512u);
  EXPECT_EQ(cached_block_size(513), 640u);
  EXPECT_EQ(cached_block_size(1024), 1024u);
  EXPECT_EQ(cached_block_size(size_t(3) << 30), size_t(3) << 30);
}

TEST(CudaCacheCap, SevenEighthsOfTheFreeMemoryNotAFixedSixteenGiB) {
  const size_t GiB = size_t(1) << 30;
  // An H100 (80 GB) with ~79 GiB free: the cache may keep ~69 GiB, far above the old fixed
  // 16 GiB that a Transformer-base step's temporaries could exceed.
  EXPECT_EQ(79 * GiB / 8 * 7, cuda_cache_cap(79 * GiB));
  EXPECT_GT(cuda_cache_cap(79 * GiB), 16 * GiB);
  // A small or busy card: never more than what was free.
  for (size_t free_bytes : {size_t(0), size_t(1), 3 * GiB, 139 * GiB})
    EXPECT_LE(cuda_cache_cap(free_bytes), free_bytes);
  EXPECT_EQ(3 * GiB / 8 * 7, cuda_cache_cap(3 * GiB));
}

}  // namespace
}  // namespace sl
