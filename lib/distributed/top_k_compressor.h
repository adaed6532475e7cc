#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distributed/error_feedback.h"
#include "distributed/sparse_pair.h"

namespace sl {

// How tau_n is found (see top_k_compressor.cpp for the passes).
//  exact:   the k-th largest |A_n| exactly, as nth_element on all of |A_n| would give, but
//           without copying or sorting A_n: a strided sample brackets it, one pass sends
//           what lies above the bracket and collects what lies inside, nth_element on those
//           finishes (fallback when the bracket misses: a histogram of the |A| bit patterns).
//  sampled: as Marian did: an evenly strided sample of m = min(sample_size, P) values,
//           A_n[j * P / m] for j = 0..m-1, and tau_n = the exact k_m-th largest |value| of
//           the sample with k_m = keep_count(m, rho_t) (nth_element). With P <= sample_size
//           it is exact. Marian sorted the sample on the GPU; the quantile is the same.
enum class ThresholdMode { Exact, Sampled };

struct CompressResult {
  float tau = 0;          // tau_n: |A_n[i]| >= tau_n is sent
  size_t k_target = 0;    // keep_count(P, rho_t)
  size_t k_selected = 0;  // pairs in S_n (>= k_target for exact: ties are all sent)
};

// Gradient dropping with error feedback, one object per node:
//   A_n = g_n + E_n;  tau_n from |A_n|;  S_n = {(i, A_n[i]) : |A_n[i]| >= tau_n} in
//   increasing i;  E_n = A_n - S_n (A_n where not sent, 0 where sent).
// Selection, packing into pairs and the residual update share the passes over the buffer:
// one pass plus a sample (a second pass only when exact's bracket misses).
class TopKCompressor {
 public:
  explicit TopKCompressor(ThresholdMode mode, size_t sample_size = 100000);
  CompressResult compress(const float* g, ErrorFeedback& E, double rho_t,
                          std::vector<SparsePair>& S);
  ThresholdMode mode() const { return mode_; }
  size_t sample_size() const { return sample_size_; }
  // Exact mode: how often the sample's bracket missed tau and the histogram pass ran.
  size_t bracket_misses() const { return bracket_misses_; }
  // Exact mode brackets tau with a strided sample of this many |A| when P > 4x it. Smaller
  // costs fewer random reads but brackets more candidates: 32768 was the fastest of 16384,
  // 32768 and 65536 at 7.6M and 60M floats (bench_sparsify, 2026-12-05).
  static constexpr size_t kBracketSample = 32768;

 private:
  CompressResult compress_exact(const float* g, float* E, size_t P, size_t k,
                                std::vector<SparsePair>& S);
  uint32_t finish_bracket(float* E, size_t k, uint32_t lo, uint32_t hi, size_t n_hi,
                          std::vector<SparsePair>& S);
  CompressResult compress_sampled(const float* g, float* E, size_t P, size_t k_of_P, double rho_t,
                                  std::vector<SparsePair>& S);

  ThresholdMode mode_;
  size_t sample_size_;
  size_t bracket_misses_ = 0;
  std::vector<uint32_t> hist_, keys_, counts_;
};

}  // namespace sl
