#pragma once
// Index arithmetic of the device-resident gradient dropping (sparsify.cu), host-callable so
// that a CPU test in CI (tests/distributed/device_exchange_plan_test.cpp) replays the whole
// device algorithm on the host with exactly these functions and checks it against
// TopKCompressor bit for bit. No CUDA headers: this file is plain C++ off the device.
//
// The device algorithm (PAPER.md notation, P values, k to keep):
//  1. compensate:  E := A = g + E                          (one add per element, as the CPU)
//  2. threshold:   tau_key = the k-th largest abs_key(A) (exact), or the k_m-th largest of the
//                  strided sample A[sample_position(j, P, m)], j < m (sampled, as Marian)
//                  -- a three-pass radix select over the 31-bit keys: pass p histograms digit
//                  radix_digit(key, p) of the keys whose higher digits equal the prefix found
//                  so far; radix_pick() walks the histogram from the top to the bin holding
//                  the k-th largest. Integer counts: the result is exact and deterministic.
//  3. compact:     S = {(i, A_i) : abs_key(A_i) >= tau_key} in increasing i, E_i := 0 there.
//                  Tiles of kTileElems consecutive elements; thread t of a tile owns
//                  kPerThread consecutive ones (tile_thread_begin); per-tile counts, an
//                  exclusive scan over tiles (scan_chunk: one block, each thread a chunk),
//                  a scan over the tile's threads, so pair slots follow the index order.
//  4. G:           zero, then for m = 0..N-1 in that order G[i] += v for S_m's pairs (indices
//                  unique within a rank, so one launch per rank needs no atomics): per element
//                  0 + S_0 + S_1 + ... -- the CPU decode_add order, bit-identical.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/counter_rng.h"  // SL_HOST_DEVICE

namespace sl {
namespace sparsify {

// One (index, value) pair, the layout of distributed's SparsePair and of the pairs32 wire.
struct DevicePair {
  uint32_t index;
  float value;
};
static_assert(sizeof(DevicePair) == 8, "DevicePair must be 8 packed bytes");

// |x| as an unsigned integer (ordered like |x|; NaN above +inf), as distributed's abs_key.
SL_HOST_DEVICE inline uint32_t abs_key(float x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x) & 0x7fffffffu;
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u & 0x7fffffffu;
#endif
}

// Sample position j of m (m <= P <= 2^32, so j * P < 2^64): floor(j * P / m), the CPU's
// strided_sample() (which computes it in 128 bits; equal for these ranges).
SL_HOST_DEVICE inline uint64_t sample_position(uint64_t j, uint64_t P, uint64_t m) {
  return j * P / m;
}

// Radix select: 31-bit keys in three digits, most significant first: bits [20, 31),
// [10, 20), [0, 10).
constexpr int kRadixPasses = 3;
constexpr int kRadixBins = 2048;
SL_HOST_DEVICE inline int radix_shift(int pass) { return pass == 0 ? 20 : pass == 1 ? 10 : 0; }
SL_HOST_DEVICE inline uint32_t radix_bins(int pass) { return pass == 0 ? 2048u : 1024u; }
SL_HOST_DEVICE inline uint32_t radix_digit(uint32_t key, int pass) {
  return (key >> radix_shift(pass)) & (radix_bins(pass) - 1);
}
// Does key agree with `prefix` on the digits above pass `pass`? (pass 0: every key.)
SL_HOST_DEVICE inline bool radix_in_prefix(uint32_t key, uint32_t prefix, int pass) {
  if (pass == 0) return true;
  const int s = radix_shift(pass - 1);
  return (key >> s) == (prefix >> s);
}
// Given the histogram of pass `pass` and the rank *k (1-based, among the keys in the
// prefix) of the wanted key, returns the digit whose bin holds it and lowers *k by the
// count of the higher bins. Requires 1 <= *k <= sum(hist).
inline uint32_t radix_pick(const uint32_t* hist, int pass, uint64_t* k) {
  uint64_t above = 0;
  for (uint32_t b = radix_bins(pass); b-- > 0;) {
    if (above + hist[b] >= *k) {
      *k -= above;
      return b;
    }
    above += hist[b];
  }
  return 0;  // unreachable when *k <= sum(hist)
}

// Compaction tiles.
constexpr int kTileThreads = 256;
constexpr int kPerThread = 4;
constexpr int kTileElems = kTileThreads * kPerThread;
SL_HOST_DEVICE inline uint64_t tile_count(uint64_t P) { return (P + kTileElems - 1) / kTileElems; }
// First element of thread t of tile b (may be >= P: the thread then has nothing).
SL_HOST_DEVICE inline uint64_t tile_thread_begin(uint64_t b, int t) {
  return b * kTileElems + uint64_t(t) * kPerThread;
}
// Exclusive scan over n counts by one block of `threads` threads: thread t scans the chunk
// [scan_chunk(n, threads, t), scan_chunk(n, threads, t + 1)).
SL_HOST_DEVICE inline uint64_t scan_chunk(uint64_t n, int threads, int t) {
  return (n * uint64_t(t)) / uint64_t(threads);  // n < 2^23 tiles (P <= 2^32), no overflow
}
constexpr int kScanThreads = 1024;

}  // namespace sparsify
}  // namespace sl
