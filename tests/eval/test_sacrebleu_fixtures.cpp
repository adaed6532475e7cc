// Scores recorded from real sacreBLEU (scripts/make-bleu-fixtures.py) must be reproduced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "eval/metrics/bleu.h"
#include "eval/metrics/chrf.h"
#include "fixture_io.h"

namespace sl {
namespace {

constexpr double kTolerance = 1e-4;

std::vector<std::string> strings(const nlohmann::json& j) {
  return j.get<std::vector<std::string>>();
}

TEST(SacrebleuFixtures, BleuAndChrfMatch) {
  const nlohmann::json fixture = test::load_fixture("corpus_scores.json");
  const auto& cases = fixture.at("cases");
  ASSERT_GE(cases.size(), 20u);
  double max_bleu_dev = 0.0, max_chrf_dev = 0.0;
  bool saw_large = false;
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const auto hyps = strings(c.at("hyps"));
    const auto refs = strings(c.at("refs"));
    saw_large = saw_large || hyps.size() >= 500;

    const auto& eb = c.at("bleu");
    const BleuScore b = corpus_bleu(hyps, refs);
    EXPECT_NEAR(b.score, eb.at("score").get<double>(), kTolerance);
    max_bleu_dev = std::max(max_bleu_dev, std::abs(b.score - eb.at("score").get<double>()));
    for (int n = 0; n < kBleuMaxOrder; ++n) {
      EXPECT_NEAR(b.precisions[n], eb.at("precisions")[n].get<double>(), kTolerance) << n;
      EXPECT_EQ(b.correct[n], eb.at("counts")[n].get<int64_t>()) << n;
      EXPECT_EQ(b.total[n], eb.at("totals")[n].get<int64_t>()) << n;
    }
    EXPECT_NEAR(b.bp, eb.at("bp").get<double>(), 1e-12);
    EXPECT_NEAR(b.ratio, eb.at("ratio").get<double>(), 1e-12);
    EXPECT_EQ(b.hyp_len, eb.at("hyp_len").get<int64_t>());
    EXPECT_EQ(b.ref_len, eb.at("ref_len").get<int64_t>());
    EXPECT_EQ(format_bleu(b), eb.at("text").get<std::string>());
    EXPECT_EQ(bleu_signature(), eb.at("signature").get<std::string>());

    const auto& ec = c.at("chrf");
    const ChrfScore f = corpus_chrf(hyps, refs);
    EXPECT_NEAR(f.score, ec.at("score").get<double>(), kTolerance);
    max_chrf_dev = std::max(max_chrf_dev, std::abs(f.score - ec.at("score").get<double>()));
    EXPECT_EQ(format_chrf(f), ec.at("text").get<std::string>());
    EXPECT_EQ(chrf_signature(), ec.at("signature").get<std::string>());
  }
  EXPECT_TRUE(saw_large) << "fixtures should contain a corpus of >= 500 segments";
  std::printf("[ fixtures ] %zu cases (sacreBLEU %s): max |BLEU dev| = %.3g, max |chrF dev| = %.3g\n",
              cases.size(), fixture.at("sacrebleu_version").get<std::string>().c_str(),
              max_bleu_dev, max_chrf_dev);
}

}  // namespace
}  // namespace sl
