// json_float: a float setting written as the shortest decimal that reads back as the same
// float, instead of the widened double (config.json showed dropout 0.10000000149011612).
#include <gtest/gtest.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/config_object.h"

namespace sl {
namespace {

TEST(JsonFloat, WritesTheShortestDecimalOfTheFloat) {
  EXPECT_EQ(nlohmann::json(json_float(0.1f)).dump(), "0.1");
  EXPECT_EQ(nlohmann::json(json_float(0.98f)).dump(), "0.98");
  EXPECT_EQ(nlohmann::json(json_float(0.6f)).dump(), "0.6");
  EXPECT_EQ(nlohmann::json(json_float(1e-9f)).dump(), "1e-09");
  EXPECT_EQ(nlohmann::json(json_float(0.5f)).dump(), "0.5");
  EXPECT_EQ(nlohmann::json(json_float(0.0f)).dump(), "0.0");
  // the widened double, for contrast
  EXPECT_EQ(nlohmann::json(static_cast<double>(0.1f)).dump(), "0.10000000149011612");
}

TEST(JsonFloat, ReadsBackAsTheSameFloat) {
  // about a million float bit patterns spread over the finite positives and negatives
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += (uint64_t{1} << 12) + 7) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    if (!std::isfinite(f)) continue;
    const double d = nlohmann::json::parse(nlohmann::json(json_float(f)).dump()).get<double>();
    ASSERT_EQ(static_cast<float>(d), f) << "bits " << b;
  }
}

}  // namespace
}  // namespace sl
