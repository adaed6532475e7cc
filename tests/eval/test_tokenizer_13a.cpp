#include "eval/metrics/tokenizer_13a.h"

#include <gtest/gtest.h>

#include "common/input_error.h"
#include "fixture_io.h"

namespace sl {
namespace {

TEST(Tokenizer13a, HandWrittenRules) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("It costs 3,000.50 (approx.)"), "It costs 3,000.50 ( approx . )");
  EXPECT_EQ(tokenize_13a("well-known 10-15 e-mail"), "well-known 10 - 15 e-mail");
  EXPECT_EQ(tokenize_13a("don't"), "don't");
  EXPECT_EQ(tokenize_13a("AT&amp;T &quot;x&quot; &amp;quot;"), "AT & T \" x \" & quot ;");
  EXPECT_EQ(tokenize_13a("a<skipped>b multi-\nline\nend"), "ab multiline end");
  EXPECT_EQ(tokenize_13a("  Größe\u00a0über  "), "Größe über");
  EXPECT_EQ(tokenize_13a(""), "");
}

TEST(Tokenizer13a, RejectsInvalidUtf8) {
  EXPECT_THROW(tokenize_13a(std::string_view("bad \xC3")), InputError);
}

TEST(Tokenizer13a, MatchesSacrebleuOnFixtures) {
  const nlohmann::json fixture = test::load_fixture("tokenizer_13a.json");
  const auto& cases = fixture.at("cases");
  ASSERT_GE(cases.size(), 300u);
  size_t mismatches = 0;
  for (const auto& c : cases) {
    const std::string input = c.at("input");
    const std::string expected = c.at("tokenized");
    const std::string got = tokenize_13a(input);
    if (got != expected) {
      ++mismatches;
      ADD_FAILURE() << "input " << nlohmann::json(input).dump() << "\n  sacreBLEU "
                    << nlohmann::json(expected).dump() << "\n  ours      "
                    << nlohmann::json(got).dump();
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << cases.size() << " tokenizer cases";
}

}  // namespace
}  // namespace sl
