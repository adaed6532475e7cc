#include "eval/metrics/bleu.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/input_error.h"

namespace sl {
namespace {

TEST(Bleu, IdenticalCorpusScores100) {
  const std::vector<std::string> lines = {"The cat sat on the mat.", "A dog, a bird."};
  const BleuScore s = corpus_bleu(lines, lines);
  EXPECT_DOUBLE_EQ(s.score, 100.0);
  EXPECT_DOUBLE_EQ(s.bp, 1.0);
  EXPECT_EQ(s.hyp_len, 13);  // 13a splits off both final periods and the comma
  EXPECT_EQ(s.ref_len, 13);
}

TEST(Bleu, ExpSmoothingHalvesEachFurtherZeroOrder) {
  BleuStats st;
  st.hyp_len = 6;
  st.ref_len = 6;
  st.correct = {5, 2, 0, 0};
  st.total = {6, 5, 4, 3};
  const BleuScore s = bleu_from_stats(st);
  EXPECT_DOUBLE_EQ(s.precisions[0], 100.0 * 5 / 6);
  EXPECT_DOUBLE_EQ(s.precisions[1], 40.0);
  EXPECT_DOUBLE_EQ(s.precisions[2], 100.0 / (2 * 4));  // first zero: 1 / (2 * total)
  EXPECT_DOUBLE_EQ(s.precisions[3], 100.0 / (4 * 3));  // second zero: 1 / (4 * total)
  const double expected = std::exp((std::log(s.precisions[0]) + std::log(s.precisions[1]) +
                                    std::log(s.precisions[2]) + std::log(s.precisions[3])) /
                                   4);
  EXPECT_NEAR(s.score, expected, 1e-12);
}

TEST(Bleu, NoMatchesOrMissingOrderGivesZero) {
  BleuStats none;
  none.hyp_len = 3;
  none.ref_len = 3;
  none.total = {3, 2, 1, 0};
  EXPECT_EQ(bleu_from_stats(none).score, 0.0);

  BleuStats short_hyps = none;  // matches exist but no 4-grams at all
  short_hyps.correct = {3, 2, 1, 0};
  const BleuScore s = bleu_from_stats(short_hyps);
  EXPECT_EQ(s.score, 0.0);
  EXPECT_DOUBLE_EQ(s.precisions[2], 100.0);
  EXPECT_EQ(s.precisions[3], 0.0);
}

TEST(Bleu, BrevityPenalty) {
  const BleuScore s = corpus_bleu({"the cat"}, {"the cat sat on the mat"});
  EXPECT_DOUBLE_EQ(s.bp, std::exp(1.0 - 6.0 / 2.0));
  EXPECT_DOUBLE_EQ(s.ratio, 2.0 / 6.0);
  const BleuScore empty = corpus_bleu({""}, {"a b"});
  EXPECT_EQ(empty.bp, 0.0);
  EXPECT_EQ(empty.score, 0.0);
}

TEST(Bleu, ClipsRepeatedNgrams) {
  const BleuStats st = bleu_segment_stats("the the the", "the cat");
  EXPECT_EQ(st.correct[0], 1);
  EXPECT_EQ(st.total[0], 3);
  EXPECT_EQ(st.total[1], 2);
}

TEST(Bleu, StatsAddUpToCorpus) {
  const std::vector<std::string> hyps = {"a b c d e", "x y z", "the end ."};
  const std::vector<std::string> refs = {"a b c d f", "x y q", "the end"};
  BleuStats sum;
  for (size_t i = 0; i < hyps.size(); ++i) sum += bleu_segment_stats(hyps[i], refs[i]);
  EXPECT_DOUBLE_EQ(bleu_from_stats(sum).score, corpus_bleu(hyps, refs).score);
}

TEST(Bleu, CaseSensitiveAndRstripped) {
  EXPECT_EQ(corpus_bleu({"HELLO THERE"}, {"hello there"}).score, 0.0);
  EXPECT_EQ(bleu_segment_stats("a b  \t\r", "a b").hyp_len, 2);
}

TEST(Bleu, BadInputThrows) {
  EXPECT_THROW(corpus_bleu({"a", "b"}, {"a"}), InputError);
  EXPECT_THROW(corpus_bleu({"ok \xFF"}, {"ok"}), InputError);
}

TEST(Bleu, FormatAndSignature) {
  BleuScore s;
  s.score = 23.456;
  s.precisions = {55.12, 30.25, 18.0, 11.34};
  s.bp = 1.0;
  s.ratio = 1.0123;
  s.hyp_len = 1012;
  s.ref_len = 1000;
  EXPECT_EQ(format_bleu(s),
            "BLEU = 23.46 55.1/30.2/18.0/11.3 (BP = 1.000 ratio = 1.012 hyp_len = 1012 "
            "ref_len = 1000)");
  EXPECT_EQ(bleu_signature(), "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
}

}  // namespace
}  // namespace sl
