#pragma once
// Shared pieces of the CPU-vs-CUDA tests: a fixture that skips without a GPU, tensors
// holding the same values on both devices, and comparisons.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/counter_rng.h"
#include "tensor/cuda/cuda_device.h"
#include "tensor/tensor.h"

namespace sl::cuda_test {

inline std::vector<float> random_values(size_t n, uint64_t stream, float lo = -1.0f,
                                        float hi = 1.0f) {
  CounterRng rng(2024, stream);
  std::vector<float> v(n);
  for (float& x : v) x = lo + (hi - lo) * rng.uniform();
  return v;
}

inline std::vector<int32_t> random_ids(size_t n, uint64_t stream, int32_t bound) {
  CounterRng rng(4048, stream);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = static_cast<int32_t>(rng.next_u64() % static_cast<uint64_t>(bound));
  return v;
}

// The same data on the CPU (side 0) and the GPU (side 1).
struct Pair {
  Tensor t[2];
  float* f(int side) const { return t[side].f32(); }
  int32_t* i(int side) const { return t[side].i32(); }
  std::vector<float> host(int side) const { return t[side].to_host(); }
};

// |gpu - cpu| <= rel * |cpu| + abs, element by element; reports the first few misses.
inline void expect_close(const std::vector<float>& cpu, const std::vector<float>& gpu, float rel,
                         float abs, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  int misses = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const bool ok = std::fabs(gpu[i] - cpu[i]) <= rel * std::fabs(cpu[i]) + abs;
    if (!ok && ++misses <= 5)
      ADD_FAILURE() << what << "[" << i << "]: cpu " << cpu[i] << " gpu " << gpu[i];
  }
  EXPECT_EQ(misses, 0) << what << ": " << misses << " of " << cpu.size() << " differ";
}

inline void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b,
                             const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  size_t misses = 0, first = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && misses++ == 0) first = i;
  EXPECT_EQ(misses, 0u) << what << ": first difference at " << first << ": " << a[first]
                        << " vs " << b[first];
}

// SL_REQUIRE_CUDA=1 (bench/gpu/run-on-gpu.sh sets it): a GPU run must test something, so
// "no usable GPU" (no device, too-old driver, no kernel image, cublasCreate failing) is a
// failure instead of a skip.
inline bool cuda_required() {
  const char* e = std::getenv("SL_REQUIRE_CUDA");
  return e && std::string(e) == "1";
}

// Skips the current test (or fails it under SL_REQUIRE_CUDA=1) with the reason.
#define SL_SKIP_WITHOUT_GPU(why)                                                  \
  do {                                                                            \
    if (::sl::cuda_test::cuda_required()) FAIL() << "SL_REQUIRE_CUDA=1 but no usable GPU: " << (why); \
    GTEST_SKIP() << "no GPU: " << (why);                                          \
  } while (0)

class CudaVsCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpu_ = cuda_device_or_null(&why);
    if (!gpu_) SL_SKIP_WITHOUT_GPU(why);
  }
  // Every test ends with the device idle and error-free: a kernel fault surfaces in the test
  // that caused it, not as a cascade of failures in the tests after it.
  void TearDown() override {
    if (!gpu_) return;
    try {
      gpu_->synchronize();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the device is in error after this test: " << e.what();
    }
  }
  Device& dev(int side) { return side == 0 ? cpu_device() : *gpu_; }
  Device& gpu() { return *gpu_; }
  CudaDevice& cuda() { return static_cast<CudaDevice&>(*gpu_); }

  Pair pair(const std::vector<float>& v) {
    const Shape s{static_cast<int64_t>(v.size())};
    return Pair{{Tensor::from_host(dev(0), s, v), Tensor::from_host(dev(1), s, v)}};
  }
  Pair pair_ids(const std::vector<int32_t>& v) {
    const Shape s{static_cast<int64_t>(v.size())};
    return Pair{{Tensor::from_host_ids(dev(0), s, v), Tensor::from_host_ids(dev(1), s, v)}};
  }
  Pair random_pair(size_t n, uint64_t stream, float lo = -1.0f, float hi = 1.0f) {
    return pair(random_values(n, stream, lo, hi));
  }
  // Runs fn(device, side) on the CPU, then on the GPU.
  template <typename F>
  void on_both(F&& fn) {
    fn(dev(0), 0);
    fn(dev(1), 1);
  }
  void expect_close(const Pair& p, const std::string& what, float rel = 1e-4f, float abs = 1e-6f) {
    cuda_test::expect_close(p.host(0), p.host(1), rel, abs, what);
  }
  void expect_same_bits(const Pair& p, const std::string& what) {
    cuda_test::expect_same_bits(p.host(0), p.host(1), what);
  }

 private:
  Device* gpu_ = nullptr;
};

}  // namespace sl::cuda_test
