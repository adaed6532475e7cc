#include "distributed/pair_encoding.h"

#include <gtest/gtest.h>

#include <cstring>

#include "distributed/top_k_compressor.h"
#include "reference_methods.h"

namespace sl {
namespace {

std::vector<SparsePair> some_pairs(size_t P, double rho) {
  const ref::Vec g = ref::gradient_like(8, 0, P);
  TopKCompressor c(ThresholdMode::Exact);
  ErrorFeedback E(P);
  std::vector<SparsePair> S;
  c.compress(g.data(), E, rho, S);
  return S;
}

TEST(PairEncoding, RoundTripAndExactSizes) {
  const size_t P = 200000;
  for (double rho : {0.0, 0.9, 0.99}) {
    const auto S = some_pairs(P, rho);
    size_t varint_size = 0;
    int64_t prev = -1;
    for (const SparsePair& p : S)
      varint_size += ref::varint_bytes(p.index - prev - 1) + 4, prev = p.index;
    for (PairEncodingKind kind : {PairEncodingKind::Pairs32, PairEncodingKind::DeltaVarint}) {
      auto enc = make_pair_encoding(kind);
      std::vector<uint8_t> wire;
      enc->encode(S, wire);
      EXPECT_EQ(kind == PairEncodingKind::Pairs32 ? 8 * S.size() : varint_size, wire.size());
      std::vector<SparsePair> back;
      enc->decode(wire, P, back);
      ASSERT_EQ(S.size(), back.size());
      for (size_t j = 0; j < S.size(); ++j) {
        EXPECT_EQ(S[j].index, back[j].index);
        EXPECT_EQ(S[j].value, back[j].value);
      }
      std::vector<float> G(P, 1.0f);
      enc->decode_add(wire, G.data(), P);
      for (const SparsePair& p : S) EXPECT_EQ(1.0f + p.value, G[p.index]);
    }
  }
}

TEST(PairEncoding, DeltaVarintIsAboutFiveBytesPerPairAtRho099) {
  const auto S = some_pairs(1000000, 0.99);
  std::vector<uint8_t> wire;
  make_pair_encoding(PairEncodingKind::DeltaVarint)->encode(S, wire);
  const double bpp = double(wire.size()) / S.size();
  EXPECT_GT(bpp, 5.0);
  EXPECT_LT(bpp, 6.0);
}

TEST(PairEncoding, LargeGapsAndIndexZero) {
  std::vector<SparsePair> S = {{0, 1.5f}, {1, -2.0f}, {200, 3.0f}, {4294967295u, 4.0f}};
  auto enc = make_pair_encoding(PairEncodingKind::DeltaVarint);
  std::vector<uint8_t> wire;
  enc->encode(S, wire);
  EXPECT_EQ(1 + 1 + 2 + 5 + 4 * 4u, wire.size());
  std::vector<SparsePair> back;
  enc->decode(wire, size_t(1) << 32, back);
  ASSERT_EQ(4u, back.size());
  EXPECT_EQ(4294967295u, back[3].index);
}

TEST(PairEncoding, RejectsMalformedBuffers) {
  auto p32 = make_pair_encoding(PairEncodingKind::Pairs32);
  auto dv = make_pair_encoding(PairEncodingKind::DeltaVarint);
  std::vector<SparsePair> out;
  EXPECT_THROW(p32->decode(std::vector<uint8_t>(7), 100, out), std::runtime_error);
  std::vector<uint8_t> wire;
  p32->encode({{100, 1.0f}}, wire);
  EXPECT_THROW(p32->decode(wire, 100, out), std::runtime_error);  // index >= P
  // Repeated or decreasing indices (the device's scatter-add needs them distinct), on both
  // decode paths; delta-varint cannot express them.
  for (const std::vector<SparsePair>& bad : {std::vector<SparsePair>{{5, 1.0f}, {5, 2.0f}},
                                             std::vector<SparsePair>{{7, 1.0f}, {3, 2.0f}}}) {
    std::vector<uint8_t> w(bad.size() * sizeof(SparsePair));
    std::memcpy(w.data(), bad.data(), w.size());
    EXPECT_THROW(p32->decode(w, 100, out), std::runtime_error);
    std::vector<float> G(100, 0.0f);
    EXPECT_THROW(p32->decode_add(w, G.data(), 100), std::runtime_error);
  }
  EXPECT_THROW(dv->decode({0x80, 0x80}, 100, out), std::runtime_error);
  EXPECT_THROW(dv->decode({0x01, 0, 0}, 100, out), std::runtime_error);
  EXPECT_THROW(dv->encode({{5, 1.0f}, {5, 1.0f}}, wire), std::logic_error);
  EXPECT_EQ(PairEncodingKind::DeltaVarint, pair_encoding_from_name("delta-varint"));
  EXPECT_THROW(pair_encoding_from_name("zip"), std::invalid_argument);
}

}  // namespace
}  // namespace sl
