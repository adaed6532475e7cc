#include "common/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace {

// RFC 4648 section 10 test vectors.
TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string, std::string> v[] = {{"", ""},
                                                   {"f", "Zg=="},
                                                   {"fo", "Zm8="},
                                                   {"foo", "Zm9v"},
                                                   {"foob", "Zm9vYg=="},
                                                   {"fooba", "Zm9vYmE="},
                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : v) {
    EXPECT_EQ(sl::base64_encode(plain), coded);
    ASSERT_TRUE(sl::base64_decode(coded).has_value()) << coded;
    EXPECT_EQ(*sl::base64_decode(coded), plain);
  }
}

TEST(Base64, EveryByteValueRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); n += 37) {
    const std::string part = all.substr(0, n);
    EXPECT_EQ(sl::base64_decode(sl::base64_encode(part)), part);
  }
}

TEST(Base64, RejectsMalformedText) {
  for (const char* bad : {"Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zm9v", "Z=g=", "Zm 9v"})
    EXPECT_FALSE(sl::base64_decode(bad).has_value()) << bad;
}

}  // namespace
