#include "distributed/top_k_compressor.h"

#include <gtest/gtest.h>

#include "distributed/drop_ratio_schedule.h"
#include "reference_methods.h"

namespace sl {
namespace {

ref::Vec dense_of(const std::vector<SparsePair>& S, size_t P) {
  ref::Vec d(P, 0.0f);
  for (const SparsePair& p : S) d[p.index] = p.value;
  return d;
}

void expect_increasing(const std::vector<SparsePair>& S) {
  for (size_t j = 1; j < S.size(); ++j) ASSERT_LT(S[j - 1].index, S[j].index);
}

// Several steps with error feedback against the reference, for each distribution.
void check_against_reference(const std::vector<ref::Vec>& gs, double rho) {
  const size_t P = gs[0].size();
  TopKCompressor c(ThresholdMode::Exact);
  ErrorFeedback E(P);
  ref::Vec E_ref(P, 0.0f);
  std::vector<SparsePair> S;
  for (const ref::Vec& g : gs) {
    float tau_ref = 0;
    const ref::Vec S_ref = ref::compress(g, E_ref, rho, &tau_ref);
    const CompressResult r = c.compress(g.data(), E, rho, S);
    expect_increasing(S);
    EXPECT_EQ(tau_ref, r.tau) << "P=" << P << " rho=" << rho;
    EXPECT_EQ(ref::k_of(P, rho), r.k_target);
    EXPECT_EQ(S.size(), r.k_selected);
    EXPECT_GE(r.k_selected, r.k_target);
    EXPECT_EQ(0u, ref::mismatches(S_ref, dense_of(S, P)));
    EXPECT_EQ(0u, ref::mismatches(E_ref, ref::Vec(E.data(), E.data() + P)));
  }
}

TEST(TopKCompressor, ExactMatchesTheSortReferenceWithErrorFeedback) {
  for (size_t P : {size_t(1), size_t(7), size_t(1000), size_t(4099)})
    for (double rho : {0.0, 0.5, 0.9, 0.99, 0.999}) {
      std::vector<ref::Vec> gs;
      for (int t = 0; t < 3; ++t) gs.push_back(ref::gradient_like(1, t, P));
      check_against_reference(gs, rho);
    }
}

TEST(TopKCompressor, ExactHandlesTiesZerosAndOneBucket) {
  const size_t P = 3000;
  ref::Vec zeros(P, 0.0f), same(P, -0.25f), narrow(P), denormal(P);
  for (size_t i = 0; i < P; ++i) {
    narrow[i] = 1.0f + float(i % 100) * 1e-7f;  // all in one histogram bucket
    denormal[i] = float(i % 11) * 1e-41f;
  }
  for (double rho : {0.0, 0.5, 0.99}) {
    check_against_reference({zeros}, rho);
    check_against_reference({same}, rho);
    check_against_reference({narrow, narrow}, rho);
    check_against_reference({denormal}, rho);
  }
}

// Above 4 * kBracketSample values the exact mode brackets tau with a sample first.
TEST(TopKCompressor, ExactBracketedPassMatchesTheReference) {
  const size_t P = 300000;
  for (double rho : {0.0, 0.5, 0.9, 0.99, 0.999}) {
    std::vector<ref::Vec> gs;
    for (int t = 0; t < 2; ++t) gs.push_back(ref::gradient_like(6, t, P));
    check_against_reference(gs, rho);
  }
  check_against_reference({ref::Vec(P, 0.0f)}, 0.99);
  check_against_reference({ref::Vec(P, 0.5f)}, 0.99);
  TopKCompressor c(ThresholdMode::Exact);
  ErrorFeedback E(P);
  std::vector<SparsePair> S;
  const ref::Vec g = ref::gradient_like(6, 0, P);
  c.compress(g.data(), E, 0.99, S);
  EXPECT_EQ(0u, c.bracket_misses());
}

TEST(TopKCompressor, ExactFallsBackWhenTheSampleMissesTheLargeValues) {
  const size_t P = 300000, m = TopKCompressor::kBracketSample;
  ref::Vec g(P, 1e-6f);
  for (size_t j = 0; j < P; j += 7) g[j] = -2e-6f;
  for (size_t j = 0; j < 3000; ++j) g[j * P / m + 1] = 1.0f + j;  // never sampled positions
  TopKCompressor c(ThresholdMode::Exact);
  ErrorFeedback E(P);
  std::vector<SparsePair> S;
  c.compress(g.data(), E, 0.99, S);
  EXPECT_EQ(1u, c.bracket_misses());  // too much above the bracket
  check_against_reference({g, g}, 0.99);
  check_against_reference({g}, 0.995);

  ref::Vec h(P, 1e-6f);
  for (size_t j = 0; j < m; ++j) h[j * P / m] = 1.0f + j;  // only the sampled positions
  TopKCompressor c2(ThresholdMode::Exact);
  ErrorFeedback E2(P);
  c2.compress(h.data(), E2, 0.99, S);
  EXPECT_EQ(1u, c2.bracket_misses());  // too little inside it
  check_against_reference({h, h}, 0.99);
}

TEST(TopKCompressor, NaNIsSentNotHiddenInTheResidual) {
  ref::Vec g = ref::gradient_like(2, 0, 500);
  g[123] = std::nanf("");
  TopKCompressor c(ThresholdMode::Exact);
  ErrorFeedback E(g.size());
  std::vector<SparsePair> S;
  c.compress(g.data(), E, 0.99, S);
  bool sent = false;
  for (auto& p : S) sent |= p.index == 123;
  EXPECT_TRUE(sent);
  EXPECT_EQ(0.0f, E.data()[123]);
}

TEST(TopKCompressor, SampledIsExactWhenTheSampleIsTheWholeBuffer) {
  const size_t P = 2000;
  for (double rho : {0.0, 0.9, 0.99}) {
    TopKCompressor exact(ThresholdMode::Exact), sampled(ThresholdMode::Sampled, P);
    ErrorFeedback E1(P), E2(P);
    std::vector<SparsePair> S1, S2;
    for (int t = 0; t < 3; ++t) {
      const ref::Vec g = ref::gradient_like(4, t, P);
      EXPECT_EQ(exact.compress(g.data(), E1, rho, S1).tau,
                sampled.compress(g.data(), E2, rho, S2).tau);
      EXPECT_EQ(0u, ref::mismatches(dense_of(S1, P), dense_of(S2, P)));
      EXPECT_EQ(0u, ref::mismatches(ref::Vec(E1.data(), E1.data() + P),
                                    ref::Vec(E2.data(), E2.data() + P)));
    }
  }
}

TEST(TopKCompressor, SampledTauIsTheQuantileOfTheStridedSample) {
  const size_t P = 100000, m = 1000;
  const double rho = 0.99;
  const ref::Vec g = ref::gradient_like(5, 0, P);
  ref::Vec sample(m);
  for (size_t j = 0; j < m; ++j) sample[j] = g[j * P / m];  // E = 0
  const float tau_ref = ref::kth_largest_abs(sample, ref::k_of(m, rho));
  TopKCompressor c(ThresholdMode::Sampled, m);
  ErrorFeedback E(P);
  std::vector<SparsePair> S;
  const CompressResult r = c.compress(g.data(), E, rho, S);
  EXPECT_EQ(tau_ref, r.tau);
  expect_increasing(S);
  size_t above = 0;
  for (float x : g) above += std::fabs(x) >= tau_ref;
  EXPECT_EQ(above, S.size());
  for (const SparsePair& p : S) EXPECT_EQ(0.0f, E.data()[p.index]);
  // The estimate lands near the target count on this heavy-tailed data.
  EXPECT_NEAR(double(S.size()), double(r.k_target), 0.5 * r.k_target);
}

TEST(DropRatioSchedule, WarmupFormulaZeroBased) {
  EXPECT_DOUBLE_EQ(std::pow(0.99, 1000.0), drop_ratio_at(0.99, 1000, 0));
  EXPECT_DOUBLE_EQ(std::pow(0.99, 1000.0 / 11.0), drop_ratio_at(0.99, 1000, 10));
  EXPECT_DOUBLE_EQ(0.99, drop_ratio_at(0.99, 1000, 999));
  EXPECT_DOUBLE_EQ(0.99, drop_ratio_at(0.99, 1000, 1000));
  EXPECT_DOUBLE_EQ(0.99, drop_ratio_at(0.99, 0, 0));
  EXPECT_DOUBLE_EQ(std::pow(0.9, 3.0 / 2.0), drop_ratio_at(0.9, 3, 1));
  EXPECT_LT(drop_ratio_at(0.99, 1000, 0), 1e-4);  // nearly dense at first
}

TEST(DropRatioSchedule, KeepCount) {
  EXPECT_EQ(1u, keep_count(100, 0.99));
  EXPECT_EQ(100u, keep_count(100, 0.0));
  EXPECT_EQ(1u, keep_count(10, 0.999));
  EXPECT_EQ(76000u, keep_count(7600000, 0.99));
  EXPECT_EQ(0u, keep_count(0, 0.5));
}

}  // namespace
}  // namespace sl
