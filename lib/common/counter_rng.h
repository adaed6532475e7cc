#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define SL_HOST_DEVICE __host__ __device__
#else
#define SL_HOST_DEVICE
#endif

namespace sl {

// Stateless counter-based random numbers: value = hash(seed, stream, index). The same
// (seed, stream, index) gives the same number on CPU and CUDA and after a resume, so
// dropout masks and shuffles need no saved generator state.
// a * b mod 2^64 from 32-bit halves: the same value as the plain product, but a loop of them
// vectorises with AVX2's 32 x 32 -> 64 multiplies (a 64-bit vector multiply needs AVX-512),
// which is what lets the CPU dropout-mask loop run 8 hashes at a time.
SL_HOST_DEVICE inline uint64_t mul64(uint64_t a, uint64_t b) {
  const uint64_t alo = a & 0xffffffffu, ahi = a >> 32, blo = b & 0xffffffffu, bhi = b >> 32;
  return alo * blo + ((alo * bhi + ahi * blo) << 32);
}

SL_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = mul64(x ^ (x >> 30), 0xBF58476D1CE4E5B9ull);
  x = mul64(x ^ (x >> 27), 0x94D049BB133111EBull);
  return x ^ (x >> 31);
}

SL_HOST_DEVICE inline uint64_t counter_hash(uint64_t seed, uint64_t stream, uint64_t index) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream)) + index);
}

// Uniform in [0, 1) with 24 bits of resolution (exactly representable in float).
SL_HOST_DEVICE inline float counter_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return static_cast<float>(counter_hash(seed, stream, index) >> 40) * (1.0f / 16777216.0f);
}

// A small sequential generator for host-side use (initialisation, shuffles).
class CounterRng {
 public:
  CounterRng(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}
  uint64_t next_u64() { return counter_hash(seed_, stream_, index_++); }
  float uniform() { return counter_uniform(seed_, stream_, index_++); }
  // Standard normal by Box-Muller on two uniforms.
  float normal();
  uint64_t position() const { return index_; }
  void set_position(uint64_t p) { index_ = p; }

 private:
  uint64_t seed_, stream_, index_ = 0;
};

}  // namespace sl
