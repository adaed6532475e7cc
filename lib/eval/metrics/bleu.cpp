#include "eval/metrics/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "common/input_error.h"
#include "eval/metrics/sacrebleu_compat.h"
#include "eval/metrics/tokenizer_13a.h"
#include "eval/metrics/utf8_text.h"

namespace sl {

namespace {

// A tokenized segment: 13a output joins tokens with single spaces, so the n-gram of
// tokens i..i+n-1 is the substring from token i's start to token i+n-1's end; those
// views are unique n-gram keys because tokens never contain a space.
struct TokenizedSegment {
  std::string text;
  std::vector<std::pair<size_t, size_t>> tokens;  // [begin, end) byte offsets
};

TokenizedSegment tokenize_segment(std::string_view raw, const char* where) {
  TokenizedSegment seg;
  seg.text = utf8_encode(tokenize_13a(python_rstrip(utf8_decode(raw, where))));
  size_t begin = 0;
  while (begin < seg.text.size()) {
    size_t end = seg.text.find(' ', begin);
    if (end == std::string::npos) end = seg.text.size();
    seg.tokens.emplace_back(begin, end);
    begin = end + 1;
  }
  return seg;
}

using NgramCounts = std::unordered_map<std::string_view, int64_t>;

NgramCounts count_ngrams(const TokenizedSegment& seg) {
  NgramCounts counts;
  const size_t n_tokens = seg.tokens.size();
  for (size_t n = 1; n <= kBleuMaxOrder; ++n) {
    for (size_t i = 0; i + n <= n_tokens; ++i) {
      const size_t begin = seg.tokens[i].first;
      const size_t end = seg.tokens[i + n - 1].second;
      ++counts[std::string_view(seg.text).substr(begin, end - begin)];
    }
  }
  return counts;
}

size_t ngram_order(std::string_view ngram) {
  return 1 + static_cast<size_t>(std::count(ngram.begin(), ngram.end(), ' '));
}

// sacreBLEU's my_log: log with log(0) floored, so a zero precision drives the score to 0.
double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

}  // namespace

BleuStats& BleuStats::operator+=(const BleuStats& other) {
  hyp_len += other.hyp_len;
  ref_len += other.ref_len;
  for (int n = 0; n < kBleuMaxOrder; ++n) {
    correct[n] += other.correct[n];
    total[n] += other.total[n];
  }
  return *this;
}

BleuStats bleu_segment_stats(std::string_view hypothesis, std::string_view reference) {
  const TokenizedSegment hyp = tokenize_segment(hypothesis, "BLEU hypothesis");
  const TokenizedSegment ref = tokenize_segment(reference, "BLEU reference");
  const NgramCounts ref_counts = count_ngrams(ref);

  BleuStats stats;
  stats.hyp_len = static_cast<int64_t>(hyp.tokens.size());
  stats.ref_len = static_cast<int64_t>(ref.tokens.size());
  for (const auto& [ngram, count] : count_ngrams(hyp)) {
    const size_t n = ngram_order(ngram) - 1;
    stats.total[n] += count;
    const auto it = ref_counts.find(ngram);
    if (it != ref_counts.end()) stats.correct[n] += std::min(count, it->second);
  }
  return stats;
}

BleuScore bleu_from_stats(const BleuStats& stats) {
  BleuScore result;
  result.hyp_len = stats.hyp_len;
  result.ref_len = stats.ref_len;
  result.correct = stats.correct;
  result.total = stats.total;
  result.ratio = stats.ref_len > 0 ? static_cast<double>(stats.hyp_len) /
                                         static_cast<double>(stats.ref_len)
                                   : 0.0;
  result.bp = 1.0;
  if (stats.hyp_len < stats.ref_len) {
    result.bp = stats.hyp_len > 0 ? std::exp(1.0 - static_cast<double>(stats.ref_len) /
                                                       static_cast<double>(stats.hyp_len))
                                  : 0.0;
  }
  if (std::all_of(stats.correct.begin(), stats.correct.end(),
                  [](int64_t c) { return c == 0; })) {
    return result;  // sacreBLEU returns 0 with all precisions 0 (its issue #141)
  }
  // Float operations in sacreBLEU's order, so results agree to the last bit.
  double smooth = 1.0;
  for (int n = 0; n < kBleuMaxOrder; ++n) {
    const double total = static_cast<double>(stats.total[n]);
    if (stats.total[n] == 0) break;
    if (stats.correct[n] == 0) {
      smooth *= 2.0;
      result.precisions[n] = 100.0 / (smooth * total);
    } else {
      result.precisions[n] = 100.0 * static_cast<double>(stats.correct[n]) / total;
    }
  }
  double log_sum = 0.0;
  for (double p : result.precisions) log_sum += floored_log(p);
  result.score = result.bp * std::exp(log_sum / kBleuMaxOrder);
  return result;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size()) {
    throw InputError("corpus_bleu", std::to_string(hypotheses.size()) + " hypotheses but " +
                                        std::to_string(references.size()) +
                                        " references (expected one reference per hypothesis)");
  }
  check_utf8_lines(hypotheses, "hypotheses");
  check_utf8_lines(references, "references");
  BleuStats stats;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    stats += bleu_segment_stats(hypotheses[i], references[i]);
  }
  return bleu_from_stats(stats);
}

std::string bleu_signature() {
  return std::string("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:") +
         kSacrebleuCompatibleVersion;
}

std::string format_bleu_details(const BleuScore& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld ref_len = %lld)",
                s.precisions[0], s.precisions[1], s.precisions[2], s.precisions[3], s.bp,
                s.ratio, static_cast<long long>(s.hyp_len), static_cast<long long>(s.ref_len));
  return buf;
}

std::string format_bleu(const BleuScore& s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "BLEU = %.2f ", s.score);
  return buf + format_bleu_details(s);
}

}  // namespace sl
