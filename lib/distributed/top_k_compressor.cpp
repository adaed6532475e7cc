#include "distributed/top_k_compressor.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "distributed/drop_ratio_schedule.h"

namespace sl {

namespace {

// Keys are < 2^31, so key >> kBucketShift < 4096: 8 exponent bits + 3 mantissa bits.
// Four interleaved histograms of 4096 counters (64 KiB) keep repeated buckets from
// serialising on one counter.
constexpr int kBucketShift = 19;
constexpr size_t kBuckets = size_t(1) << (31 - kBucketShift);
constexpr size_t kBlock = 16;  // elements per "is anything selected here?" check

// E := g + E over [0, P), one histogram count per element.
void compensate_and_histogram(const float* g, float* E, size_t P, uint32_t* hist) {
  uint32_t* h0 = hist;
  uint32_t* h1 = hist + kBuckets;
  uint32_t* h2 = hist + 2 * kBuckets;
  uint32_t* h3 = hist + 3 * kBuckets;
  size_t i = 0;
  for (; i + 4 <= P; i += 4) {
    const float a0 = g[i] + E[i], a1 = g[i + 1] + E[i + 1];
    const float a2 = g[i + 2] + E[i + 2], a3 = g[i + 3] + E[i + 3];
    E[i] = a0, E[i + 1] = a1, E[i + 2] = a2, E[i + 3] = a3;
    ++h0[abs_key(a0) >> kBucketShift];
    ++h1[abs_key(a1) >> kBucketShift];
    ++h2[abs_key(a2) >> kBucketShift];
    ++h3[abs_key(a3) >> kBucketShift];
  }
  for (; i < P; ++i) {
    const float a = g[i] + E[i];
    E[i] = a;
    ++h0[abs_key(a) >> kBucketShift];
  }
}

// The k-th largest key's `value` (k >= 1) among keys[0..n), by nth_element.
uint32_t kth_largest(std::vector<uint32_t>& keys, size_t k) {
  std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end(), std::greater<uint32_t>());
  return keys[k - 1];
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

// Pass 1: A = g + E into E, histogram of the top 12 bits of |A|; the bucket that holds the
// k-th largest is `hi`. Pass 2: everything above bucket `hi` is sent at once; bucket `hi`'s
// values become candidates, among which nth_element finds tau exactly. The two sorted lists
// are merged so S_n stays in increasing index order (the delta encoding needs it).
CompressResult TopKCompressor::compress_exact(const float* g, float* E, size_t P, size_t k,
                                              std::vector<SparsePair>& S) {
  hist_.assign(4 * kBuckets, 0);
  compensate_and_histogram(g, E, P, hist_.data());
  size_t above = 0;
  uint32_t hi = 0;
  for (size_t b = kBuckets; b-- > 0;) {
    const size_t c = hist_[b] + hist_[b + kBuckets] + hist_[b + 2 * kBuckets] +
                     hist_[b + 3 * kBuckets];
    if (above + c >= k) {
      hi = static_cast<uint32_t>(b);
      break;
    }
    above += c;
  }
  const uint32_t first_key_of_hi = hi << kBucketShift;
  candidates_.clear();
  for (size_t b = 0; b < P; b += kBlock) {
    const size_t e = std::min(P, b + kBlock);
    unsigned any = 0;
    for (size_t i = b; i < e; ++i) any |= abs_key(E[i]) >= first_key_of_hi;
    if (!any) continue;
    for (size_t i = b; i < e; ++i) {
      const uint32_t bucket = abs_key(E[i]) >> kBucketShift;
      if (bucket > hi) {
        S.push_back({static_cast<uint32_t>(i), E[i]});
        E[i] = 0.0f;
      } else if (bucket == hi) {
        candidates_.push_back({static_cast<uint32_t>(i), E[i]});
      }
    }
  }
  keys_.resize(candidates_.size());
  for (size_t j = 0; j < candidates_.size(); ++j) keys_[j] = abs_key(candidates_[j].value);
  const uint32_t tau_key = kth_largest(keys_, k - above);
  size_t kept = 0;
  for (const SparsePair& c : candidates_) {
    if (abs_key(c.value) < tau_key) continue;
    candidates_[kept++] = c;
    E[c.index] = 0.0f;
  }
  candidates_.resize(kept);
  merged_.resize(S.size() + kept);
  std::merge(S.begin(), S.end(), candidates_.begin(), candidates_.end(), merged_.begin(),
             [](const SparsePair& a, const SparsePair& b) { return a.index < b.index; });
  S.swap(merged_);
  return {key_value(tau_key), k, S.size()};
}

// The sample reads A = g + E at m strided positions; then one pass computes A, packs what
// is at or above tau and leaves the rest in E.
CompressResult TopKCompressor::compress_sampled(const float* g, float* E, size_t P,
                                                size_t k_of_P, double rho_t,
                                                std::vector<SparsePair>& S) {
  const size_t m = std::min(sample_size_, P);
  keys_.resize(m);
  for (size_t j = 0; j < m; ++j) {
    const size_t i = static_cast<size_t>((static_cast<unsigned __int128>(j) * P) / m);
    keys_[j] = abs_key(g[i] + E[i]);
  }
  const uint32_t tau_key = kth_largest(keys_, keep_count(m, rho_t));
  for (size_t b = 0; b < P; b += kBlock) {
    const size_t e = std::min(P, b + kBlock);
    unsigned any = 0;
    for (size_t i = b; i < e; ++i) {
      const float a = g[i] + E[i];
      E[i] = a;
      any |= abs_key(a) >= tau_key;
    }
    if (!any) continue;
    for (size_t i = b; i < e; ++i) {
      if (abs_key(E[i]) < tau_key) continue;
      S.push_back({static_cast<uint32_t>(i), E[i]});
      E[i] = 0.0f;
    }
  }
  return {key_value(tau_key), k_of_P, S.size()};
}

}  // namespace sl
