// The device-resident exchange's index arithmetic (lib/tensor/cuda/sparsify_plan.h), on the
// host, in CI (no GPU, no CUDA headers): a replay of the kernels' algorithm -- compensate,
// radix select, tiled compaction with its scans, rank-order scatter -- built only from the
// plan's functions, checked bit for bit against TopKCompressor and decode_add. When a GPU is
// lent, tests/cuda/cuda_sparsify_test.cpp checks the kernels against the same CPU code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/counter_rng.h"
#include "distributed/drop_ratio_schedule.h"
#include "distributed/pair_encoding.h"
#include "distributed/top_k_compressor.h"
#include "tensor/cuda/sparsify_plan.h"

namespace sl {
namespace {

using namespace sparsify;

std::vector<float> gaussianish(size_t n, uint64_t stream, float scale = 1.0f) {
  CounterRng rng(77, stream);
  std::vector<float> v(n);
  for (float& x : v) {
    const float u = rng.uniform() + rng.uniform() + rng.uniform() - 1.5f;
    x = scale * u * u * u;  // heavy-tailed, like gradients
  }
  return v;
}

// What radix_hist_kernel + kth_largest_key compute: the k-th largest abs_key of x.
uint32_t replay_kth_largest(const std::vector<float>& x, uint64_t k) {
  uint32_t prefix = 0;
  uint64_t rank = k;
  for (int pass = 0; pass < kRadixPasses; ++pass) {
    std::vector<uint32_t> h(kRadixBins, 0);
    for (float v : x) {
      const uint32_t key = sparsify::abs_key(v);
      if (radix_in_prefix(key, prefix, pass)) ++h[radix_digit(key, pass)];
    }
    prefix |= radix_pick(h.data(), pass, &rank) << radix_shift(pass);
  }
  return prefix;
}

struct Replay {
  uint32_t tau_key = 0;
  std::vector<DevicePair> pairs;
};

// sparsify::compress() as the kernels do it, thread by thread.
Replay replay_compress(const std::vector<float>& g, std::vector<float>& E, uint64_t k,
                       uint64_t sample_size) {
  const uint64_t P = g.size();
  Replay r;
  for (uint64_t i = 0; i < P; ++i) E[i] = g[i] + E[i];  // compensate_kernel
  if (sample_size == 0 || sample_size >= P) {
    r.tau_key = replay_kth_largest(E, k);
  } else {
    std::vector<float> s(sample_size);
    for (uint64_t j = 0; j < sample_size; ++j) s[j] = E[sample_position(j, P, sample_size)];
    r.tau_key = replay_kth_largest(s, k);
  }
  const uint64_t tiles = tile_count(P);
  auto thread_count = [&](uint64_t b, int t) {
    uint32_t c = 0;
    const uint64_t i0 = tile_thread_begin(b, t);
    for (int u = 0; u < kPerThread; ++u) c += i0 + u < P && sparsify::abs_key(E[i0 + u]) >= r.tau_key;
    return c;
  };
  std::vector<uint32_t> counts(tiles, 0);  // tile_count_kernel
  for (uint64_t b = 0; b < tiles; ++b)
    for (int t = 0; t < kTileThreads; ++t) counts[b] += thread_count(b, t);
  std::vector<uint64_t> offsets(tiles), sums(kScanThreads);  // tile_scan_kernel
  for (int t = 0; t < kScanThreads; ++t)
    for (uint64_t b = scan_chunk(tiles, kScanThreads, t); b < scan_chunk(tiles, kScanThreads, t + 1); ++b)
      sums[t] += counts[b];
  uint64_t total = 0;
  for (int t = 0; t < kScanThreads; ++t) {
    uint64_t run = total;
    total += sums[t];
    for (uint64_t b = scan_chunk(tiles, kScanThreads, t); b < scan_chunk(tiles, kScanThreads, t + 1); ++b) {
      offsets[b] = run;
      run += counts[b];
    }
  }
  r.pairs.assign(total, DevicePair{~0u, NAN});
  std::vector<bool> written(total, false);
  for (uint64_t b = 0; b < tiles; ++b) {  // compact_kernel; threads in reverse to show independence
    uint32_t before[kTileThreads];
    uint32_t run = 0;
    for (int t = 0; t < kTileThreads; ++t) before[t] = run, run += thread_count(b, t);
    for (int t = kTileThreads; t-- > 0;) {
      uint64_t slot = offsets[b] + before[t];
      const uint64_t i0 = tile_thread_begin(b, t);
      for (int u = 0; u < kPerThread; ++u) {
        const uint64_t i = i0 + u;
        if (i < P && sparsify::abs_key(E[i]) >= r.tau_key) {
          EXPECT_LT(slot, total);
          EXPECT_FALSE(written[slot]) << "two writers for slot " << slot;
          written[slot] = true;
          r.pairs[slot++] = DevicePair{uint32_t(i), E[i]};
          E[i] = 0.0f;
        }
      }
    }
  }
  return r;
}

void expect_same(const std::vector<SparsePair>& S, const Replay& r, const char* what) {
  ASSERT_EQ(S.size(), r.pairs.size()) << what;
  for (size_t j = 0; j < S.size(); ++j) {
    ASSERT_EQ(S[j].index, r.pairs[j].index) << what << " pair " << j;
    ASSERT_EQ(0, std::memcmp(&S[j].value, &r.pairs[j].value, 4)) << what << " pair " << j;
  }
}

void expect_same_bits(const std::vector<float>& a, const float* b, const char* what) {
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(0, std::memcmp(&a[i], &b[i], 4)) << what << " at " << i;
}

// Several error-feedback steps, CPU TopKCompressor vs the replay, for a mode and sizes.
void check_steps(ThresholdMode mode, size_t P, double rho, size_t sample_size, int steps,
                 bool ties) {
  TopKCompressor cpu(mode, sample_size ? sample_size : 100000);
  ErrorFeedback E(P);
  std::vector<float> E_dev(P, 0.0f);
  std::vector<SparsePair> S;
  for (int s = 0; s < steps; ++s) {
    std::vector<float> g = gaussianish(P, 100 * P + s);
    if (ties)
      for (size_t i = 0; i < P; i += 3) g[i] = (i % 2 ? -0.5f : 0.5f);  // many equal |values|
    if (P > 10) g[7] = std::numeric_limits<float>::quiet_NaN();          // always sent
    const CompressResult c = cpu.compress(g.data(), E, rho, S);
    const uint64_t k = mode == ThresholdMode::Exact || sample_size >= P
                           ? keep_count(P, rho)
                           : keep_count(sample_size, rho);
    const Replay r = replay_compress(g, E_dev, k, mode == ThresholdMode::Exact ? 0 : sample_size);
    float tau;
    std::memcpy(&tau, &r.tau_key, 4);
    EXPECT_EQ(0, std::memcmp(&tau, &c.tau, 4)) << "tau P=" << P << " rho=" << rho << " step " << s;
    expect_same(S, r, "S_n");
    expect_same_bits(E_dev, E.data(), "E_n");
  }
}

TEST(DeviceExchangePlan, ExactSelectionMatchesTopKCompressor) {
  for (size_t P : {1, 5, 1023, 1024, 1025, 40000}) check_steps(ThresholdMode::Exact, P, 0.99, 0, 3, false);
  check_steps(ThresholdMode::Exact, 300000, 0.99, 0, 2, false);  // the CPU's bracket path
  check_steps(ThresholdMode::Exact, 300000, 0.99, 0, 1, true);   // ties: all sent on both
  check_steps(ThresholdMode::Exact, 5000, 0.5, 0, 2, true);      // warm-up drop ratios
  check_steps(ThresholdMode::Exact, 5000, 0.0, 0, 1, false);     // k = P: everything sent
}

TEST(DeviceExchangePlan, SampledSelectionMatchesTopKCompressor) {
  check_steps(ThresholdMode::Sampled, 300000, 0.99, 1000, 3, false);
  check_steps(ThresholdMode::Sampled, 300001, 0.9, 100000, 2, true);
  check_steps(ThresholdMode::Sampled, 2000, 0.99, 100000, 2, false);  // P <= sample: exact
}

TEST(DeviceExchangePlan, SamplePositionEqualsThe128BitFormula) {
  CounterRng rng(5, 6);
  for (int n = 0; n < 100000; ++n) {
    const uint64_t P = 1 + rng.next_u64() % (uint64_t(1) << 32);
    const uint64_t m = 1 + rng.next_u64() % P;
    const uint64_t j = rng.next_u64() % m;
    const uint64_t want = static_cast<uint64_t>((static_cast<unsigned __int128>(j) * P) / m);
    ASSERT_EQ(want, sample_position(j, P, m)) << j << " " << P << " " << m;
  }
  const uint64_t P = uint64_t(1) << 32;
  EXPECT_EQ(P - 1, sample_position(P - 1, P, P));
}

TEST(DeviceExchangePlan, ScanChunksAndTilesCoverEveryIndexOnce) {
  for (uint64_t n : {0, 1, 7, 1023, 1024, 1025, 4194304}) {
    uint64_t expect = 0;
    for (int t = 0; t < kScanThreads; ++t) {
      ASSERT_EQ(expect, scan_chunk(n, kScanThreads, t));
      expect = scan_chunk(n, kScanThreads, t + 1);
      ASSERT_GE(expect, scan_chunk(n, kScanThreads, t));
    }
    EXPECT_EQ(n, expect);
  }
  const uint64_t P = uint64_t(1) << 32;  // largest P: tiles and thread offsets stay exact
  EXPECT_EQ(P / kTileElems, tile_count(P));
  EXPECT_EQ(P - kPerThread, tile_thread_begin(tile_count(P) - 1, kTileThreads - 1));
  for (uint64_t b = 0; b < 3; ++b)
    for (int t = 0; t + 1 < kTileThreads; ++t)
      EXPECT_EQ(tile_thread_begin(b, t) + kPerThread, tile_thread_begin(b, t + 1));
  EXPECT_EQ(tile_thread_begin(0, kTileThreads - 1) + kPerThread, tile_thread_begin(1, 0));
}

TEST(DeviceExchangePlan, RadixPickWalksFromTheTop) {
  std::vector<uint32_t> h(kRadixBins, 0);
  h[2047] = 2;
  h[5] = 3;
  h[0] = 10;
  uint64_t k = 1;
  EXPECT_EQ(2047u, radix_pick(h.data(), 0, &k));
  EXPECT_EQ(1u, k);
  k = 3;
  EXPECT_EQ(5u, radix_pick(h.data(), 0, &k));
  EXPECT_EQ(1u, k);
  k = 15;
  EXPECT_EQ(0u, radix_pick(h.data(), 0, &k));
  EXPECT_EQ(10u, k);
  // Digits put back together give the key.
  const uint32_t key = 0x7f123456u & 0x7fffffffu;
  uint32_t rebuilt = 0;
  for (int p = 0; p < kRadixPasses; ++p) {
    EXPECT_TRUE(radix_in_prefix(key, rebuilt, p));
    rebuilt |= radix_digit(key, p) << radix_shift(p);
  }
  EXPECT_EQ(key, rebuilt);
  EXPECT_EQ(sparsify::abs_key(-1.5f), sparsify::abs_key(1.5f));
  EXPECT_GT(sparsify::abs_key(std::numeric_limits<float>::quiet_NaN()), sparsify::abs_key(INFINITY));
}

// G = sum over ranks in rank order, one pass per rank (scatter_add_kernel): the same bits as
// decode_add of the received blocks in rank order (the CPU exchange).
TEST(DeviceExchangePlan, RankOrderScatterEqualsDecodeAdd) {
  const size_t P = 5000;
  const int N = 4;
  auto enc = make_pair_encoding(PairEncodingKind::DeltaVarint);
  std::vector<float> G_cpu(P, 0.0f), G_dev(P, 0.0f);
  for (int m = 0; m < N; ++m) {
    std::vector<float> g = gaussianish(P, 900 + m), E(P, 0.0f);
    const Replay r = replay_compress(g, E, keep_count(P, 0.9), 0);
    std::vector<SparsePair> S(r.pairs.size());
    std::memcpy(S.data(), r.pairs.data(), S.size() * sizeof(SparsePair));
    std::vector<uint8_t> wire;
    enc->encode(S, wire);
    enc->decode_add(wire, G_cpu.data(), P);
    std::vector<SparsePair> back;
    enc->decode(wire, P, back);
    for (const SparsePair& p : back) G_dev[p.index] = G_dev[p.index] + p.value;
  }
  expect_same_bits(G_cpu, G_dev.data(), "G");
}

}  // namespace
}  // namespace sl
