#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

// Corpus BLEU exactly as sacreBLEU 2.x computes it with its defaults: one reference per
// segment, 13a tokenization after rstrip, case-sensitive, n-gram orders 1..4, brevity
// penalty, 'exp' smoothing (NIST / mteval-v13a), effective order off.
inline constexpr int kBleuMaxOrder = 4;

// Sufficient statistics; they add up over segments (corpus BLEU sums them first).
struct BleuStats {
  int64_t hyp_len = 0;  // tokens
  int64_t ref_len = 0;
  std::array<int64_t, kBleuMaxOrder> correct{};  // clipped n-gram matches, index n-1
  std::array<int64_t, kBleuMaxOrder> total{};    // hypothesis n-grams, index n-1
  BleuStats& operator+=(const BleuStats& other);
};

struct BleuScore {
  double score = 0.0;                                // 0..100, not rounded
  std::array<double, kBleuMaxOrder> precisions{};    // percent, after smoothing
  double bp = 0.0;                                   // brevity penalty
  double ratio = 0.0;                                // hyp_len / ref_len (0 when ref_len = 0)
  int64_t hyp_len = 0;
  int64_t ref_len = 0;
  std::array<int64_t, kBleuMaxOrder> correct{};
  std::array<int64_t, kBleuMaxOrder> total{};
};

// Statistics of one segment pair (raw, untokenized UTF-8 text). Throws InputError on
// invalid UTF-8.
BleuStats bleu_segment_stats(std::string_view hypothesis, std::string_view reference);

// sacreBLEU's BLEU.compute_bleu with smooth_method='exp': an order with zero matches gets
// precision 100 / (2^k * total) for its k-th zero; no matches at all gives 0; an order
// with no hypothesis n-grams at all (every segment shorter than n) ends the loop and,
// without effective order, makes the score 0.
BleuScore bleu_from_stats(const BleuStats& stats);

// Corpus BLEU over aligned lines. Throws InputError when the counts differ or a line is
// not valid UTF-8. An empty corpus scores 0.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references);

// "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
std::string bleu_signature();

// sacreBLEU's text form: "BLEU = 23.45 55.1/30.2/18.0/11.3 (BP = 1.000 ratio = 1.012
// hyp_len = 1234 ref_len = 1220)".
std::string format_bleu(const BleuScore& score);

// The part after the score, sacreBLEU's "verbose_score": "55.1/30.2/18.0/11.3 (BP = ...)".
std::string format_bleu_details(const BleuScore& score);

}  // namespace sl
