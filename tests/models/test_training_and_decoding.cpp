// A tiny model overfits a copy task; greedy and beam search then reproduce its targets.
#include <gtest/gtest.h>

#include <map>

#include "common/input_error.h"
#include "eval/decoding/beam_search.h"
#include "eval/decoding/greedy_decoder.h"
#include "eval/decoding/translate_sentences.h"
#include "model_test_util.h"

namespace sl {
namespace {

using testing::ModelUnderTest;

const std::vector<std::vector<int32_t>>& copy_sentences() {
  static const auto s = testing::random_sentences(6, 3, 6, 40);
  return s;
}

DecodeOptions options(int beam, float alpha = 0.0f) {
  DecodeOptions o;
  o.beam_size = beam;
  o.length_alpha = alpha;
  o.bos_id = testing::kBos;
  o.eos_id = testing::kEos;
  return o;
}

struct Trained {
  std::unique_ptr<ModelUnderTest> m;
  std::vector<float> losses;
};

// Trained once per process and kind (`steps` Adam steps on the copy batch).
Trained& trained(const std::string& kind, int steps) {
  // Never destroyed: its tensors must not outlive the process-wide CPU device at exit.
  static auto& cache = *new std::map<std::pair<std::string, int>, Trained>();
  Trained& t = cache[{kind, steps}];
  if (!t.m) {
    t.m = std::make_unique<ModelUnderTest>(testing::tiny_config(kind), 17);
    t.losses = testing::train_adam(*t.m, testing::copy_batch(copy_sentences()), steps);
  }
  return t;
}

constexpr int kFullTraining = 200;

class TrainedCopyModel : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainedCopyModel, OverfitsAFixedBatch) {
  const Trained& t = trained(GetParam(), kFullTraining);
  EXPECT_LT(t.losses.back(), 0.1f * t.losses.front())
      << "first " << t.losses.front() << " last " << t.losses.back();
}

TEST_P(TrainedCopyModel, GreedyReproducesTheTargets) {
  Trained& t = trained(GetParam(), kFullTraining);
  const SourceBatch src = make_source_batch(cpu_device(), copy_sentences());
  const std::vector<Hypothesis> out = greedy_decode(*t.m->model, t.m->arena, src, options(1));
  ASSERT_EQ(out.size(), copy_sentences().size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].tokens, copy_sentences()[i]) << "sentence " << i;
    EXPECT_TRUE(out[i].ended_with_eos);
    EXPECT_LE(out[i].score, 0.0f);
  }
}

TEST_P(TrainedCopyModel, BeamSearchReproducesTheTargets) {
  Trained& t = trained(GetParam(), kFullTraining);
  const std::vector<Hypothesis> out =
      translate_sentences(*t.m->model, t.m->arena, copy_sentences(), options(4, 0.6f), 4);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].tokens, copy_sentences()[i]) << i;
}

// On a barely trained model the outputs are long and uncertain: the strongest comparison.
TEST_P(TrainedCopyModel, BeamOfOneIsExactlyGreedy) {
  for (int steps : {0, 20}) {
    Trained& t = trained(GetParam(), steps);
    const SourceBatch src = make_source_batch(cpu_device(), copy_sentences());
    const auto greedy = greedy_decode(*t.m->model, t.m->arena, src, options(1, 0.6f));
    const auto beam = beam_search(*t.m->model, t.m->arena, src, options(1, 0.6f));
    for (size_t i = 0; i < greedy.size(); ++i) {
      EXPECT_EQ(beam[i].tokens, greedy[i].tokens) << "steps " << steps << " sentence " << i;
      EXPECT_EQ(beam[i].score, greedy[i].score);
      EXPECT_EQ(beam[i].normalized_score, greedy[i].normalized_score);
      EXPECT_EQ(beam[i].ended_with_eos, greedy[i].ended_with_eos);
    }
  }
}

TEST_P(TrainedCopyModel, WiderBeamScoresAtLeastAsWellAsGreedy) {
  for (int steps : {20, kFullTraining}) {
    Trained& t = trained(GetParam(), steps);
    const SourceBatch src = make_source_batch(cpu_device(), copy_sentences());
    const auto greedy = greedy_decode(*t.m->model, t.m->arena, src, options(1));
    const auto beam = beam_search(*t.m->model, t.m->arena, src, options(5));
    for (size_t i = 0; i < greedy.size(); ++i)
      EXPECT_GE(beam[i].score, greedy[i].score - 1e-5f) << "steps " << steps << " sentence " << i;
  }
}

TEST_P(TrainedCopyModel, DecodingIsDeterministicAndIndependentOfBatching) {
  Trained& t = trained(GetParam(), 20);
  const auto a = translate_sentences(*t.m->model, t.m->arena, copy_sentences(), options(3), 6);
  const auto b = translate_sentences(*t.m->model, t.m->arena, copy_sentences(), options(3), 6);
  const auto c = translate_sentences(*t.m->model, t.m->arena, copy_sentences(), options(3), 1);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tokens, b[i].tokens);
    EXPECT_EQ(a[i].score, b[i].score);
    EXPECT_EQ(a[i].tokens, c[i].tokens) << "sentence " << i << " decoded alone";
    EXPECT_NEAR(a[i].score, c[i].score, 1e-4f);
  }
}

TEST_P(TrainedCopyModel, LengthLimitStopsHypotheses) {
  Trained& t = trained(GetParam(), 0);
  DecodeOptions o = options(3);
  o.max_length_factor = 0.0f;
  o.max_length_offset = 2;
  o.eos_id = testing::kTinyVocab + 5;  // never produced: every hypothesis hits the limit
  const auto out = translate_sentences(*t.m->model, t.m->arena, copy_sentences(), o, 6);
  for (const Hypothesis& h : out) {
    EXPECT_EQ(h.tokens.size(), 2u);
    EXPECT_FALSE(h.ended_with_eos);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TrainedCopyModel, ::testing::ValuesIn(testing::model_kinds()));

TEST(DecodeOptions, ParsesAndRejects) {
  nlohmann::json j{{"beam_size", 6},
                   {"length_alpha", 1.0},
                   {"max_length_factor", 1.5},
                   {"max_length_offset", 4}};
  ConfigObject c(j, "t.json", "/decode");
  DecodeOptions o = parse_decode_options(c);
  EXPECT_EQ(o.beam_size, 6);
  EXPECT_FLOAT_EQ(o.length_alpha, 1.0f);
  EXPECT_FLOAT_EQ(o.max_length_factor, 1.5f);
  EXPECT_EQ(o.max_length_offset, 4);
  ConfigObject bad(nlohmann::json{{"beam_size", 0}}, "t.json", "/decode");
  EXPECT_THROW(parse_decode_options(bad), InputError);
  ConfigObject unknown(nlohmann::json{{"beam", 4}}, "t.json", "/decode");
  EXPECT_THROW(parse_decode_options(unknown), InputError);
}

}  // namespace
}  // namespace sl
