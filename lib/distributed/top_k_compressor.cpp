#include "distributed/top_k_compressor.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

#include "distributed/drop_ratio_schedule.h"

namespace sl {

namespace {

// Keys are < 2^31, so key >> kBucketShift < 4096: 8 exponent bits + 3 mantissa bits.
// Four interleaved histograms of 4096 counters (64 KiB) keep repeated buckets from
// serialising on one counter.
constexpr int kBucketShift = 19;
constexpr size_t kBuckets = size_t(1) << (31 - kBucketShift);
constexpr size_t kBlock = 16;  // elements per "is anything selected here?" check

// The k-th largest (k >= 1) of keys, by nth_element (reorders keys).
uint32_t kth_largest(std::vector<uint32_t>& keys, size_t k) {
  std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end(), std::greater<uint32_t>());
  return keys[k - 1];
}

// keys[j] = |A[j * P / m]| for j < m, A = g + E.
void strided_sample(const float* g, const float* E, size_t P, size_t m,
                    std::vector<uint32_t>& keys) {
  keys.resize(m);
  // Every read is a cache miss at a large stride: prefetching kAhead positions ahead keeps
  // many misses in flight instead of waiting for each in turn (5x faster at 60M floats).
  constexpr size_t kAhead = 16;
  auto at = [&](size_t j) {
    return static_cast<size_t>((static_cast<unsigned __int128>(j) * P) / m);
  };
  for (size_t j = 0; j < m; ++j) {
    if (j + kAhead < m) {
      const size_t f = at(j + kAhead);
      __builtin_prefetch(g + f);
      __builtin_prefetch(E + f);
    }
    const size_t i = at(j);
    keys[j] = abs_key(g[i] + E[i]);
  }
}

// The one pass over the buffer. With kCompensate, E := A = g + E first (else E holds A).
// Every key >= lo is appended to S as a pair, in index order; those with key >= hi are sent
// for sure, so their residual is zeroed here while the line is hot. Returns how many those
// are; the rest of S (lo <= key < hi) are candidates, E untouched.
template <bool kCompensate>
size_t partition_pass_scalar(const float* __restrict g, float* __restrict E, size_t P, uint32_t lo,
                             uint32_t hi, std::vector<SparsePair>& S) {
  size_t n_hi = 0;
  for (size_t b = 0; b < P; b += kBlock) {
    const size_t e = std::min(P, b + kBlock);
    unsigned any = 0;
    for (size_t i = b; i < e; ++i) {
      float a = E[i];
      if (kCompensate) a = g[i] + a, E[i] = a;
      any |= abs_key(a) >= lo;
    }
    if (!any) continue;
    for (size_t i = b; i < e; ++i) {
      const uint32_t key = abs_key(E[i]);
      if (key < lo) continue;
      S.push_back({static_cast<uint32_t>(i), E[i]});
      const bool sent = key >= hi;
      E[i] = sent ? 0.0f : E[i];
      n_hi += sent;
    }
  }
  return n_hi;
}

#ifdef __AVX2__
// The same pass, 8 floats at a time: the compare's movemask names the selected lanes, so
// only they are visited (no second scan of a block; with rho 0.99 most masks are 0). Same
// bits as the scalar pass (one IEEE add per element), same pairs in the same index order.
template <bool kCompensate>
size_t partition_pass_avx2(const float* __restrict g, float* __restrict E, size_t P, uint32_t lo,
                           uint32_t hi, std::vector<SparsePair>& S) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
  const __m256i below_lo = _mm256_set1_epi32(static_cast<int32_t>(lo) - 1);  // key > lo - 1
  size_t n_hi = 0;
  auto visit = [&](size_t i) {
    const float a = E[i];
    S.push_back({static_cast<uint32_t>(i), a});
    const bool sent = abs_key(a) >= hi;  // a select, not a branch: ~1 in 6 is a candidate
    E[i] = sent ? 0.0f : a;
    n_hi += sent;
  };
  // Four vectors per iteration: one test of their masks, the usual case being no lane at all.
  auto lanes = [&](size_t at) {
    __m256 a = _mm256_loadu_ps(E + at);
    if (kCompensate) {
      a = _mm256_add_ps(_mm256_loadu_ps(g + at), a);
      _mm256_storeu_ps(E + at, a);
    }
    const __m256i key = _mm256_and_si256(_mm256_castps_si256(a), abs_mask);
    return static_cast<unsigned>(
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(key, below_lo))));
  };
  size_t i = 0;
  for (; i + 32 <= P; i += 32) {
    unsigned m = lanes(i) | (lanes(i + 8) << 8) | (lanes(i + 16) << 16) | (lanes(i + 24) << 24);
    while (m) {
      visit(i + static_cast<size_t>(__builtin_ctz(m)));
      m &= m - 1;
    }
  }
  for (; i < P; ++i) {  // the last < 32
    if (kCompensate) E[i] = g[i] + E[i];
    if (abs_key(E[i]) >= lo) visit(i);
  }
  return n_hi;
}
#endif

template <bool kCompensate>
size_t partition_pass(const float* g, float* E, size_t P, uint32_t lo, uint32_t hi,
                      std::vector<SparsePair>& S) {
#ifdef __AVX2__
  if (lo >= 1 && lo <= 0x7fffffffu) return partition_pass_avx2<kCompensate>(g, E, P, lo, hi, S);
#endif
  return partition_pass_scalar<kCompensate>(g, E, P, lo, hi, S);
}

// Scanning buckets from the highest down: the one that holds the t-th largest element
// (count(b) = elements in bucket b), and how many elements lie in the buckets above it.
template <class Count>
std::pair<uint32_t, size_t> bucket_of_tth_largest(size_t buckets, size_t t, Count count) {
  size_t above = 0;
  for (size_t b = buckets; b-- > 0;) {
    const size_t c = count(b);
    if (above + c >= t) return {static_cast<uint32_t>(b), above};
    above += c;
  }
  return {0, above};
}

// The t-th largest (1 <= t <= keys.size()) of keys that all lie in [lo, hi): a histogram on
// the high bits of key - lo finds the bucket holding it, nth_element finishes inside that
// bucket (a few hundred keys instead of all candidates; reorders and shrinks keys).
uint32_t kth_largest_in_range(std::vector<uint32_t>& keys, size_t t, uint32_t lo, uint32_t hi,
                              std::vector<uint32_t>& counts) {
  constexpr uint32_t kSelectBuckets = 4096;
  const uint32_t span = hi - lo;
  int shift = 0;
  while (((span - 1) >> shift) >= kSelectBuckets) ++shift;
  counts.assign(kSelectBuckets, 0);
  for (const uint32_t key : keys) ++counts[(key - lo) >> shift];
  const auto [bucket, above] =
      bucket_of_tth_largest(kSelectBuckets, t, [&](size_t b) { return size_t{counts[b]}; });
  size_t n = 0;
  for (const uint32_t key : keys) {
    keys[n] = key;
    n += ((key - lo) >> shift) == bucket;
  }
  keys.resize(n);
  return kth_largest(keys, t - above);
}

}  // namespace

TopKCompressor::TopKCompressor(ThresholdMode mode, size_t sample_size)
    : mode_(mode), sample_size_(sample_size) {
  if (sample_size_ == 0) throw std::invalid_argument("TopKCompressor: sample_size must be > 0");
}

CompressResult TopKCompressor::compress(const float* g, ErrorFeedback& E, double rho_t,
                                        std::vector<SparsePair>& S) {
  const size_t P = E.size();
  S.clear();
  if (P == 0) return {};
  if (P > (size_t(1) << 32)) throw std::length_error("TopKCompressor: P exceeds 32-bit indices");
  const size_t k = keep_count(P, rho_t);
  return mode_ == ThresholdMode::Exact ? compress_exact(g, E.data(), P, k, S)
                                       : compress_sampled(g, E.data(), P, k, rho_t, S);
}

// S holds, in index order, every pair with key >= lo; n_hi of them (key >= hi) lie above the
// k-th largest and are already out of E. The k-th largest is the (k - n_hi)-th largest
// candidate (lo <= key < hi). Drops the candidates below it from S in place (no merge: S
// stays in index order) and zeroes the residual of those kept.
uint32_t TopKCompressor::finish_bracket(float* E, size_t k, uint32_t lo, uint32_t hi, size_t n_hi,
                                        std::vector<SparsePair>& S) {
  keys_.resize(S.size());
  size_t n = 0;
  for (const SparsePair& p : S) {
    const uint32_t key = abs_key(p.value);
    keys_[n] = key;
    n += key < hi;
  }
  keys_.resize(n);
  const uint32_t tau_key = kth_largest_in_range(keys_, k - n_hi, lo, hi, counts_);
  // keys_ now collects the positions whose residual still has to be zeroed.
  keys_.resize(S.size());
  size_t kept = 0, zero = 0;
  for (const SparsePair p : S) {  // a copy: S[kept] may be this very element
    const uint32_t key = abs_key(p.value);
    S[kept] = p;
    kept += key >= tau_key;
    keys_[zero] = p.index;
    zero += key >= tau_key && key < hi;
  }
  S.resize(kept);
  // Scattered stores into a buffer far larger than the cache: prefetch them for writing
  // a few ahead so the misses overlap.
  constexpr size_t kAhead = 16;
  for (size_t j = 0; j < zero; ++j) {
    if (j + kAhead < zero) __builtin_prefetch(E + keys_[j + kAhead], 1);
    E[keys_[j]] = 0.0f;
  }
  return tau_key;
}

// Exact tau without sorting the buffer. Usually one pass: a strided sample brackets the k-th
// largest |A| between two sample quantiles [lo, hi) with a wide margin; the pass sends all
// above hi and collects the few in between, among which a histogram and nth_element find
// tau (finish_bracket). If the bracket missed (or P is small), the histogram method finds
// it: the top 12 bits of |A| give the bucket holding the k-th largest, a second pass collects
// that bucket as candidates.
// Either way tau is the k-th largest |A| exactly, so the result does not depend on the path.
CompressResult TopKCompressor::compress_exact(const float* g, float* E, size_t P, size_t k,
                                              std::vector<SparsePair>& S) {
  bool compensated = false;
  const size_t m = kBracketSample;
  const double r = static_cast<double>(k) * m / P;  // expected rank of tau in the sample
  const double margin = 4.0 * std::sqrt(r) + 16.0;
  const double r_hi = std::floor(r - margin), r_lo = std::ceil(r + margin);
  // Without a lower end (k near P, early in the drop-ratio warm-up) nearly everything would
  // be a candidate; the histogram's boundary bucket is then the smaller set.
  if (P > 4 * m && r_lo <= m) {
    strided_sample(g, E, P, m, keys_);
    // lo first over the whole sample; nth_element leaves the r_lo largest in front, so hi
    // (a smaller rank) is selected among those alone (0.54 -> 0.23 ms for 65536 keys).
    const size_t n_lo = static_cast<size_t>(r_lo);
    const uint32_t lo = kth_largest(keys_, n_lo);
    uint32_t hi = ~0u;
    if (r_hi >= 1) {
      const auto hi_at = keys_.begin() + (static_cast<ptrdiff_t>(r_hi) - 1);
      std::nth_element(keys_.begin(), hi_at, keys_.begin() + n_lo, std::greater<uint32_t>());
      hi = *hi_at + 1;
    }
    const size_t n_hi = partition_pass<true>(g, E, P, lo, hi, S);
    compensated = true;
    if (n_hi < k && k <= S.size()) {
      const uint32_t tau_key = finish_bracket(E, k, lo, hi, n_hi, S);
      return {key_value(tau_key), k, S.size()};
    }
    ++bracket_misses_;
    for (const SparsePair& p : S) E[p.index] = p.value;  // undo: E holds A again
    S.clear();
  }
  hist_.assign(4 * kBuckets, 0);
  uint32_t* h[4] = {hist_.data(), hist_.data() + kBuckets, hist_.data() + 2 * kBuckets,
                    hist_.data() + 3 * kBuckets};
  size_t i = 0;
  for (; i + 4 <= P; i += 4)
    for (int u = 0; u < 4; ++u) {
      const float a = compensated ? E[i + u] : g[i + u] + E[i + u];
      E[i + u] = a;
      ++h[u][abs_key(a) >> kBucketShift];
    }
  for (; i < P; ++i) {
    const float a = compensated ? E[i] : g[i] + E[i];
    E[i] = a;
    ++h[0][abs_key(a) >> kBucketShift];
  }
  const uint32_t bucket = bucket_of_tth_largest(kBuckets, k, [&](size_t b) {
                            return size_t{h[0][b]} + h[1][b] + h[2][b] + h[3][b];
                          }).first;
  const uint32_t lo = bucket << kBucketShift, hi = (bucket + 1) << kBucketShift;
  const size_t n_hi = partition_pass<false>(nullptr, E, P, lo, hi, S);
  const uint32_t tau_key = finish_bracket(E, k, lo, hi, n_hi, S);
  return {key_value(tau_key), k, S.size()};
}

// The sample reads A = g + E at m strided positions; then one pass computes A, packs what
// is at or above tau and leaves the rest in E.
CompressResult TopKCompressor::compress_sampled(const float* g, float* E, size_t P, size_t k_of_P,
                                                double rho_t, std::vector<SparsePair>& S) {
  const size_t m = std::min(sample_size_, P);
  strided_sample(g, E, P, m, keys_);
  const uint32_t tau_key = kth_largest(keys_, keep_count(m, rho_t));
  partition_pass<true>(g, E, P, tau_key, tau_key, S);
  return {key_value(tau_key), k_of_P, S.size()};
}

}  // namespace sl
