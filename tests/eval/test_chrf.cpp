#include "eval/metrics/chrf.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace sl {
namespace {

TEST(Chrf, IdenticalIs100AndEmptyIs0) {
  EXPECT_DOUBLE_EQ(corpus_chrf({"Größe über alles"}, {"Größe über alles"}).score, 100.0);
  EXPECT_EQ(corpus_chrf({""}, {""}).score, 0.0);
  EXPECT_EQ(corpus_chrf({""}, {"abc"}).score, 0.0);
}

TEST(Chrf, CountsCodePointsNotBytes) {
  // "ä" is 2 bytes but one character: one 1-gram, no 2-grams.
  const ChrfStats st = chrf_segment_stats("ä", "ä");
  EXPECT_EQ(st.orders[0].hyp, 1);
  EXPECT_EQ(st.orders[0].match, 1);
  EXPECT_EQ(st.orders[1].ref, 0);
  EXPECT_DOUBLE_EQ(chrf_from_stats(st), 100.0);
}

TEST(Chrf, WhitespaceIsRemoved) {
  const ChrfStats a = chrf_segment_stats("a b\u00a0c", "abc");
  EXPECT_EQ(a.orders[2].hyp, 1);  // "abc" once the spaces are gone
  EXPECT_EQ(a.orders[2].match, 1);
}

TEST(Chrf, HypothesisNgramsUncountedWhereReferenceHasNone) {
  const ChrfStats st = chrf_segment_stats("abcd", "ab");
  EXPECT_EQ(st.orders[1].hyp, 3);
  EXPECT_EQ(st.orders[2].hyp, 0);  // reference has no 3-grams
  EXPECT_EQ(st.orders[2].ref, 0);
}

TEST(Chrf, EffectiveOrderAverage) {
  // Orders 1 and 2 only: P1 = 2/3, R1 = 2/2, P2 = 1/2, R2 = 1/1.
  const ChrfStats st = chrf_segment_stats("abx", "ab");
  const double p = (2.0 / 3 + 1.0 / 2) / 2, r = 1.0;
  EXPECT_NEAR(chrf_from_stats(st), 100 * 5 * p * r / (4 * p + r), 1e-12);
}

TEST(Chrf, BadInputThrows) {
  EXPECT_THROW(corpus_chrf({"a"}, {"a", "b"}), InputError);
  EXPECT_THROW(corpus_chrf({"a"}, {"\xC3"}), InputError);
}

TEST(Chrf, FormatAndSignature) {
  ChrfScore s;
  s.score = 55.234;
  EXPECT_EQ(format_chrf(s), "chrF2 = 55.23");
  EXPECT_EQ(chrf_signature(), "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0");
}

}  // namespace
}  // namespace sl
