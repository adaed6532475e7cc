#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

// Corpus chrF as sacreBLEU 2.x computes it with its defaults (chrF2): character n-grams
// of orders 1..6 over code points with all whitespace removed, no word n-grams, beta 2,
// case-sensitive, one reference, and sacreBLEU's "effective order" averaging (orders
// where the hypothesis or the reference has no n-grams are left out), not eps smoothing.
inline constexpr int kChrfCharOrder = 6;
inline constexpr int kChrfBeta = 2;

struct ChrfOrderStats {
  int64_t hyp = 0;    // hypothesis n-grams (0 when the reference has none of this order)
  int64_t ref = 0;    // reference n-grams
  int64_t match = 0;  // clipped matches
};

// Sufficient statistics; they add up over segments.
struct ChrfStats {
  std::array<ChrfOrderStats, kChrfCharOrder> orders{};  // index n-1
  ChrfStats& operator+=(const ChrfStats& other);
};

struct ChrfScore {
  double score = 0.0;  // 0..100, not rounded
  ChrfStats stats;
};

// Statistics of one segment pair (UTF-8). Throws InputError on invalid UTF-8.
ChrfStats chrf_segment_stats(std::string_view hypothesis, std::string_view reference);

// sacreBLEU's CHRF._compute_f_score with eps_smoothing=False.
double chrf_from_stats(const ChrfStats& stats);

// Corpus chrF over aligned lines. Throws InputError when the counts differ or a line is
// not valid UTF-8. An empty corpus scores 0.
ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references);

// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"
std::string chrf_signature();

// sacreBLEU's text form: "chrF2 = 55.23".
std::string format_chrf(const ChrfScore& score);

}  // namespace sl
