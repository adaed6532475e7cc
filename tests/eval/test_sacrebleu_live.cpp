// When sacreBLEU is importable, score freshly generated corpora with it and with us.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "common/counter_rng.h"
#include "eval/metrics/bleu.h"
#include "eval/metrics/chrf.h"
#include "fixture_io.h"

namespace sl {
namespace {

// Tricky pieces for 13a and chrF: punctuation, numbers, hyphens, entities, Unicode.
const std::vector<std::string> kPieces = {
    "the", "a", "house", "is", "small", "we", "said", "of", "Größe", "über", "Straße",
    "Mädchen", "naïve", "well-known", "e-mail", "don't", "O'Neill", "U.S.", "1,000", "3.14",
    "10-15", "5-", "$20", "€30", "1.000,50", "(see", "above)", "[1]", "\"q\"", "„de“",
    "&amp;", "&quot;", "&lt;b&gt;", "AT&amp;T", "<skipped>", "a/b", "x@y.org", "C++",
    "why?", "yes!", "wait...", "—", "東京", "😀", ".", ",", "!", "?", ";", ":", "-", "'"};
const std::vector<std::string> kSeparators = {" ", " ", " ", " ", "", "  ", "\t", "\u00a0"};

std::string pick(CounterRng& rng, const std::vector<std::string>& from) {
  return from[rng.next_u64() % from.size()];
}

std::string random_sentence(CounterRng& rng) {
  const int n = 1 + static_cast<int>(rng.next_u64() % 25);
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? pick(rng, kSeparators) : "") + pick(rng, kPieces);
  return s;
}

std::string perturb(CounterRng& rng, const std::string& ref) {
  if (rng.uniform() < 0.05f) return "";
  std::string out;
  size_t begin = 0;
  while (begin <= ref.size()) {
    size_t end = ref.find(' ', begin);
    if (end == std::string::npos) end = ref.size();
    const std::string word = ref.substr(begin, end - begin);
    const float u = rng.uniform();
    if (u >= 0.15f) out += (out.empty() ? "" : " ") + (u < 0.3f ? pick(rng, kPieces) : word);
    begin = end + 1;
  }
  return out;
}

bool sacrebleu_available(std::string* why) {
  if (std::system("python3 -c 'import sacrebleu' >/dev/null 2>&1") != 0) {
    *why = "python3 with sacrebleu not available (pip install sacrebleu to run this check)";
    return false;
  }
  return true;
}

TEST(SacrebleuLive, RandomCorporaMatch) {
  std::string why;
  if (!sacrebleu_available(&why)) GTEST_SKIP() << why;

  test::ScratchDir dir;
  const int kCorpora = 3;
  std::vector<std::vector<std::string>> all_hyps, all_refs;
  std::string args;
  for (int k = 0; k < kCorpora; ++k) {
    CounterRng rng(/*seed=*/2024, /*stream=*/k);
    std::vector<std::string> refs, hyps;
    for (int i = 0; i < 300; ++i) {
      refs.push_back(random_sentence(rng));
      hyps.push_back(perturb(rng, refs.back()));
    }
    args += " " + dir.write("hyp" + std::to_string(k), test::join_lines(hyps));
    args += " " + dir.write("ref" + std::to_string(k), test::join_lines(refs));
    all_hyps.push_back(hyps);
    all_refs.push_back(refs);
  }
  // Lines are split on '\n' only, as our files were written; nothing else is stripped.
  const std::string script = dir.write("score.py", R"(import json, sys
from sacrebleu.metrics import BLEU, CHRF
out = []
for h, r in zip(sys.argv[1::2], sys.argv[2::2]):
    hyps = open(h, encoding="utf-8", newline="\n").read().split("\n")[:-1]
    refs = open(r, encoding="utf-8", newline="\n").read().split("\n")[:-1]
    b = BLEU().corpus_score(hyps, [refs])
    out.append({"bleu": b.score, "hyp_len": b.sys_len, "ref_len": b.ref_len,
                "chrf": CHRF().corpus_score(hyps, [refs]).score})
print(json.dumps(out))
)");
  const std::string result = dir.reserve("result.json");
  ASSERT_EQ(std::system(("python3 " + script + args + " > " + result).c_str()), 0);
  const nlohmann::json expected = nlohmann::json::parse(test::slurp(result));
  ASSERT_EQ(expected.size(), static_cast<size_t>(kCorpora));
  for (int k = 0; k < kCorpora; ++k) {
    SCOPED_TRACE("corpus " + std::to_string(k));
    const BleuScore b = corpus_bleu(all_hyps[k], all_refs[k]);
    EXPECT_NEAR(b.score, expected[k].at("bleu").get<double>(), 1e-4);
    EXPECT_EQ(b.hyp_len, expected[k].at("hyp_len").get<int64_t>());
    EXPECT_EQ(b.ref_len, expected[k].at("ref_len").get<int64_t>());
    EXPECT_NEAR(corpus_chrf(all_hyps[k], all_refs[k]).score,
                expected[k].at("chrf").get<double>(), 1e-4);
    std::printf("[ live ] corpus %d: BLEU %.6f vs sacreBLEU %.6f\n", k, b.score,
                expected[k].at("bleu").get<double>());
  }
}

}  // namespace
}  // namespace sl
