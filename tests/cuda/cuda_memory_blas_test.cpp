// CUDA device creation, memory, caching allocator and cuBLAS GEMMs against the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "cuda_test_util.h"
#include "tensor/device_registry.h"

namespace sl::cuda_test {
namespace {

TEST(CudaAvailability, GivesADeviceOrAReason) {
  std::string why;
  Device* d = cuda_device_or_null(&why);
  if (!d) {
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(cuda_available());
    EXPECT_THROW(device_by_name("cuda"), InputError);
    SL_SKIP_WITHOUT_GPU(why);
  }
  EXPECT_TRUE(d->is_cuda());
  EXPECT_STREQ(d->name(), "cuda");
  EXPECT_EQ(cuda_device_or_null(nullptr), d);  // process-wide, created once
  EXPECT_EQ(&device_by_name("cuda"), d);
  std::cout << "CUDA device: " << static_cast<CudaDevice*>(d)->description() << "\n";
}

using CudaMemory = CudaVsCpu;

TEST_F(CudaMemory, RoundTripsAndCopies) {
  const std::vector<float> v = random_values(10007, 1);
  Tensor a = Tensor::from_host(gpu(), Shape{10007}, v);
  Tensor b = Tensor::empty(gpu(), Shape{10007});
  gpu().copy(b.f32(), a.f32(), v.size() * sizeof(float));
  cuda_test::expect_same_bits(v, b.to_host(), "copy");
  // Overlapping ranges behave like memmove (as on the CPU backend).
  std::vector<float> want = v;
  std::copy(v.begin(), v.begin() + 9000, want.begin() + 1000);
  gpu().copy(a.f32() + 1000, a.f32(), 9000 * sizeof(float));
  cuda_test::expect_same_bits(want, a.to_host(), "overlapping copy");
}

TEST_F(CudaMemory, CachingAllocatorReusesFreedBlocks) {
  cuda().empty_cache();
  const size_t in_use = cuda().bytes_in_use();
  void* p = gpu().alloc(1 << 20);
  EXPECT_EQ(cuda().bytes_in_use(), in_use + (1 << 20));
  gpu().release(p);
  EXPECT_EQ(cuda().bytes_cached(), size_t(1) << 20);
  void* q = gpu().alloc((1 << 20) - 100);  // same size class
  EXPECT_EQ(q, p);
  EXPECT_EQ(cuda().bytes_cached(), 0u);
  gpu().release(q);
  cuda().empty_cache();
  EXPECT_EQ(cuda().bytes_cached(), 0u);
  EXPECT_EQ(cuda().bytes_in_use(), in_use);
}

TEST_F(CudaMemory, OutOfMemoryThrowsAndLeavesTheDeviceUsable) {
  EXPECT_THROW(gpu().alloc(size_t(1) << 50), std::runtime_error);
  Pair y = random_pair(100, 2);
  on_both([&](Device& d, int s) { d.fill(100, 3.0f, y.f(s)); });
  expect_same_bits(y, "fill after a failed allocation");
}

using CudaGemm = CudaVsCpu;

TEST_F(CudaGemm, MatchesCpuForAllTransposes) {
  const int shapes[][3] = {{64, 48, 32}, {7, 129, 33}, {1, 300, 17}, {200, 1, 5}};
  for (const auto& sh : shapes)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        const int M = sh[0], N = sh[1], K = sh[2];
        Pair A = random_pair(size_t(M) * K, 3), B = random_pair(size_t(K) * N, 4);
        Pair C = random_pair(size_t(M) * N, 5);
        on_both([&](Device& d, int s) { d.gemm(ta, tb, M, N, K, 0.5f, A.f(s), B.f(s), 0.25f, C.f(s)); });
        expect_close(C, "gemm M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" +
                            std::to_string(K) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                     1e-4f, 1e-5f);
      }
}

TEST_F(CudaGemm, BatchedMatchesCpuWithPaddedStrides) {
  const int M = 9, N = 11, K = 13, batch = 5;
  const int64_t sa = M * K + 3, sb = K * N + 5, sc = M * N + 7;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Pair A = random_pair(size_t(sa) * batch, 6), B = random_pair(size_t(sb) * batch, 7);
      Pair C = random_pair(size_t(sc) * batch, 8);
      on_both([&](Device& d, int s) {
        d.gemm_batched(ta, tb, M, N, K, 1.0f, A.f(s), sa, B.f(s), sb, 0.0f, C.f(s), sc, batch);
      });
      expect_close(C, "gemm_batched ta=" + std::to_string(ta) + " tb=" + std::to_string(tb), 1e-4f, 1e-5f);
    }
}

TEST_F(CudaGemm, GridMatchesCpu) {
  // Attention's shapes: q [B, T, H * Dh] and k [B, S, H * Dh] in place -> scores [B, H, T, S].
  const int B = 2, H = 3, T = 5, S = 7, Dh = 4;
  const MatrixGrid gq{int64_t(T) * H * Dh, Dh, H * Dh}, gk{int64_t(S) * H * Dh, Dh, H * Dh},
      gs{int64_t(H) * T * S, int64_t(T) * S, S};
  Pair Q = random_pair(size_t(B) * T * H * Dh, 11), K = random_pair(size_t(B) * S * H * Dh, 12);
  Pair Sc = random_pair(size_t(B) * H * T * S, 13), dQ = random_pair(size_t(B) * T * H * Dh, 14);
  on_both([&](Device& d, int s) {
    d.gemm_grid(false, true, T, S, Dh, 1.0f, Q.f(s), gq, K.f(s), gk, 0.0f, Sc.f(s), gs, B, H);
  });
  expect_close(Sc, "gemm_grid scores", 1e-4f, 1e-5f);
  on_both([&](Device& d, int s) {  // dq = dS k, accumulated (beta 1)
    d.gemm_grid(false, false, T, Dh, S, 1.0f, Sc.f(s), gs, K.f(s), gk, 1.0f, dQ.f(s), gq, B, H);
  });
  expect_close(dQ, "gemm_grid dq", 1e-4f, 1e-5f);
}

// K == 0 is GPU-only here: the CPU backend passes lda = K = 0, which cblas rejects.
TEST_F(CudaGemm, EmptyInnerDimensionScalesC) {
  Pair C = random_pair(12, 9);
  std::vector<float> want = C.host(1);
  for (float& x : want) x *= 2.0f;
  gpu().gemm(false, false, 3, 4, 0, 1.0f, C.f(1), C.f(1), 2.0f, C.f(1));
  cuda_test::expect_same_bits(want, C.host(1), "K = 0, beta = 2");
  gpu().gemm_batched(false, false, 2, 3, 0, 1.0f, C.f(1), 0, C.f(1), 0, 0.0f, C.f(1), 6, 2);
  cuda_test::expect_same_bits(std::vector<float>(12, 0.0f), C.host(1), "batched K = 0, beta = 0");
}

TEST_F(CudaGemm, CublasErrorsAreThrown) {
  Pair C = random_pair(16, 10);
  EXPECT_THROW(gpu().gemm(false, false, 4, 4, -1, 1.0f, C.f(1), C.f(1), 0.0f, C.f(1)),
               std::runtime_error);
}

TEST_F(CudaGemm, Tf32IsOptInAndClose) {
  EXPECT_FALSE(cuda().tf32());
  const int M = 128, N = 96, K = 256;
  Pair A = random_pair(size_t(M) * K, 11), B = random_pair(size_t(K) * N, 12);
  Pair C = random_pair(size_t(M) * N, 13);
  Pair C32 = random_pair(size_t(M) * N, 13);
  gpu().gemm(false, true, M, N, K, 1.0f, A.f(1), B.f(1), 0.0f, C32.f(1));  // full fp32
  cuda().set_tf32(true);
  EXPECT_TRUE(cuda().tf32());
  on_both([&](Device& d, int s) { d.gemm(false, true, M, N, K, 1.0f, A.f(s), B.f(s), 0.0f, C.f(s)); });
  cuda().set_tf32(false);
  EXPECT_FALSE(cuda().tf32());
  // TF32 keeps 10 mantissa bits: relative error about 1e-3 of the products' scale (~sqrt(K)).
  expect_close(C, "tf32 gemm", 1e-2f, 2e-2f);
  // ... and it must actually have been used: on sm_80+ the TF32 result differs from the fp32
  // one well beyond fp32 rounding (~1e-6 here). Pre-Ampere GPUs have no TF32: cuBLAS runs fp32.
  const std::string desc = cuda().description();
  const size_t at = desc.find("sm_");
  const int major = at == std::string::npos ? 0 : std::atoi(desc.c_str() + at + 3) / 10;
  const std::vector<float> tf = C.host(1), fp = C32.host(1);
  double worst = 0.0;
  for (size_t i = 0; i < tf.size(); ++i) worst = std::max(worst, double(std::fabs(tf[i] - fp[i])));
  if (major >= 8) {
    EXPECT_GT(worst, 1e-4) << "TF32 on gave the fp32 result: set_tf32(true) had no effect";
  }
  // And off again means fp32 again, bit for bit (same cuBLAS algorithm, deterministic).
  Pair again = random_pair(size_t(M) * N, 13);
  gpu().gemm(false, true, M, N, K, 1.0f, A.f(1), B.f(1), 0.0f, again.f(1));
  cuda_test::expect_same_bits(fp, again.host(1), "fp32 after TF32 off");
}

}  // namespace
}  // namespace sl::cuda_test
