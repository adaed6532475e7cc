#include "eval/metrics/chrf.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "common/input_error.h"
#include "eval/metrics/sacrebleu_compat.h"
#include "eval/metrics/utf8_text.h"

namespace sl {

namespace {

// ''.join(line.split()): every (Python) whitespace code point removed.
std::u32string strip_whitespace(std::string_view raw, const char* where) {
  std::u32string text = utf8_decode(raw, where);
  text.erase(std::remove_if(text.begin(), text.end(), is_python_space), text.end());
  return text;
}

using CharNgramCounts = std::unordered_map<std::u32string_view, int64_t>;

CharNgramCounts count_char_ngrams(const std::u32string& text, size_t n) {
  CharNgramCounts counts;
  for (size_t i = 0; i + n <= text.size(); ++i) ++counts[std::u32string_view(text).substr(i, n)];
  return counts;
}

}  // namespace

ChrfStats& ChrfStats::operator+=(const ChrfStats& other) {
  for (int n = 0; n < kChrfCharOrder; ++n) {
    orders[n].hyp += other.orders[n].hyp;
    orders[n].ref += other.orders[n].ref;
    orders[n].match += other.orders[n].match;
  }
  return *this;
}

ChrfStats chrf_segment_stats(std::string_view hypothesis, std::string_view reference) {
  const std::u32string hyp = strip_whitespace(hypothesis, "chrF hypothesis");
  const std::u32string ref = strip_whitespace(reference, "chrF reference");
  ChrfStats stats;
  for (size_t n = 1; n <= kChrfCharOrder; ++n) {
    const CharNgramCounts ref_counts = count_char_ngrams(ref, n);
    int64_t hyp_total = 0, ref_total = 0, match = 0;
    for (const auto& [ngram, count] : ref_counts) ref_total += count;
    for (const auto& [ngram, count] : count_char_ngrams(hyp, n)) {
      hyp_total += count;
      const auto it = ref_counts.find(ngram);
      if (it != ref_counts.end()) match += std::min(count, it->second);
    }
    ChrfOrderStats& o = stats.orders[n - 1];
    // sacreBLEU does not count hypothesis n-grams of an order the reference lacks.
    o.hyp = ref_counts.empty() ? 0 : hyp_total;
    o.ref = ref_total;
    o.match = match;
  }
  return stats;
}

double chrf_from_stats(const ChrfStats& stats) {
  // Float operations in sacreBLEU's order, so results agree to the last bit.
  const double factor = static_cast<double>(kChrfBeta * kChrfBeta);
  double avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (const ChrfOrderStats& o : stats.orders) {
    if (o.hyp > 0 && o.ref > 0) {
      avg_prec += static_cast<double>(o.match) / static_cast<double>(o.hyp);
      avg_rec += static_cast<double>(o.match) / static_cast<double>(o.ref);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  avg_prec /= effective_order;
  avg_rec /= effective_order;
  if (avg_prec + avg_rec == 0.0) return 0.0;
  double score = (1.0 + factor) * avg_prec * avg_rec;
  score /= factor * avg_prec + avg_rec;
  return 100.0 * score;
}

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size()) {
    throw InputError("corpus_chrf", std::to_string(hypotheses.size()) + " hypotheses but " +
                                        std::to_string(references.size()) +
                                        " references (expected one reference per hypothesis)");
  }
  check_utf8_lines(hypotheses, "hypotheses");
  check_utf8_lines(references, "references");
  ChrfScore result;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    result.stats += chrf_segment_stats(hypotheses[i], references[i]);
  }
  result.score = chrf_from_stats(result.stats);
  return result;
}

std::string chrf_signature() {
  return std::string("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:") +
         kSacrebleuCompatibleVersion;
}

std::string format_chrf(const ChrfScore& s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "chrF%d = %.2f", kChrfBeta, s.score);
  return buf;
}

}  // namespace sl
