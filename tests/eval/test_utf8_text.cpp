#include "eval/metrics/utf8_text.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace sl {
namespace {

TEST(Utf8Text, DecodesAndEncodesAllLengths) {
  const std::string text = "a\xC3\xA4\xE2\x82\xAC\xF0\x9F\x98\x80";  // a ä € 😀
  const std::u32string cps = utf8_decode(text, "test");
  ASSERT_EQ(cps, (std::u32string{U'a', 0xE4, 0x20AC, 0x1F600}));
  EXPECT_EQ(utf8_encode(cps), text);
}

TEST(Utf8Text, RejectsMalformedLikePythonStrictDecoder) {
  EXPECT_EQ(find_invalid_utf8("ok \xC3\xA4"), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("ab\xC0\x80"), 2u);          // overlong NUL
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);        // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("x\xF4\x90\x80\x80"), 1u);   // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("xy\xE2\x82"), 2u);          // truncated
  EXPECT_EQ(find_invalid_utf8("\x80"), 0u);                // stray continuation byte
  EXPECT_THROW(utf8_decode("\xFF", "where"), InputError);
}

TEST(Utf8Text, CheckLinesNamesTheLine) {
  try {
    check_utf8_lines({"fine", "also fine", "bad \xFF"}, "hypotheses");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "hypotheses line 3");
    EXPECT_NE(std::string(e.what()).find("byte 5"), std::string::npos) << e.what();  // 1-based
  }
}

TEST(Utf8Text, WhitespaceIsPythons) {
  for (char32_t c : {U' ', U'\t', U'\n', U'\r', char32_t(0x0B), char32_t(0x0C), char32_t(0x1C),
                     char32_t(0x1F), char32_t(0x85), char32_t(0xA0), char32_t(0x1680),
                     char32_t(0x2000), char32_t(0x200A), char32_t(0x2028), char32_t(0x2029),
                     char32_t(0x202F), char32_t(0x205F), char32_t(0x3000)}) {
    EXPECT_TRUE(is_python_space(c)) << std::hex << static_cast<uint32_t>(c);
  }
  for (char32_t c : {U'a', U'0', char32_t(0x08), char32_t(0x1B), char32_t(0x200B),
                     char32_t(0xFEFF), char32_t(0x180E)}) {
    EXPECT_FALSE(is_python_space(c)) << std::hex << static_cast<uint32_t>(c);
  }
}

TEST(Utf8Text, SplitAndRstripMatchPython) {
  const std::u32string text = U"  a\u00a0b\t\tc\u3000 ";
  EXPECT_EQ(python_split(text), (std::vector<std::u32string>{U"a", U"b", U"c"}));
  EXPECT_TRUE(python_split(U" \t ").empty());
  EXPECT_EQ(python_rstrip(text), U"  a\u00a0b\t\tc");
  EXPECT_EQ(python_rstrip(U""), U"");
}

}  // namespace
}  // namespace sl
