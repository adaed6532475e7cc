// start/step/reorder must give the same log-probabilities as the teacher-forced forward pass.
#include <gtest/gtest.h>

#include <cmath>

#include "autograd/ops.h"
#include "model_test_util.h"

namespace sl {
namespace {

using testing::ModelUnderTest;

class IncrementalDecoding : public ::testing::TestWithParam<std::string> {
 protected:
  IncrementalDecoding()
      : m(testing::tiny_config(GetParam()), 31),
        batch(testing::copy_batch(testing::random_sentences(3, 3, 6, 12))) {
    Graph g(cpu_device(), false, 0);
    full = ops::log_softmax(m.model->logits(g, m.arena, batch)).value().to_host();
    tgt_in = batch.tgt_in.to_host_ids();
    tgt_out = batch.tgt_out.to_host_ids();
  }
  // Feeds column t of tgt_in for the sentences `rows` and compares with the full pass.
  void step_and_compare(DecoderState& s, const std::vector<int32_t>& rows, int t) {
    std::vector<int32_t> prev;
    for (int32_t b : rows) prev.push_back(tgt_in[b * batch.T + t]);
    const std::vector<float> lp = m.model->step(s, prev).to_host();
    const int V = testing::kTinyVocab;
    ASSERT_EQ(lp.size(), rows.size() * V);
    for (size_t r = 0; r < rows.size(); ++r) {
      const int b = rows[r];
      if (tgt_out[b * batch.T + t] == kPadId) continue;  // past this sentence's end
      for (int v = 0; v < V; ++v)
        ASSERT_NEAR(lp[r * V + v], full[(static_cast<size_t>(b) * batch.T + t) * V + v], 1e-4f)
            << "row " << r << " (sentence " << b << ") position " << t << " token " << v;
    }
  }
  ModelUnderTest m;
  ModelBatch batch;
  std::vector<float> full;
  std::vector<int32_t> tgt_in, tgt_out;
};

TEST_P(IncrementalDecoding, StepsMatchTeacherForcing) {
  auto state = m.model->start(m.arena, batch.src, batch.src_lengths);
  ASSERT_EQ(state->rows(), batch.B);
  for (int t = 0; t < batch.T; ++t) step_and_compare(*state, {0, 1, 2}, t);
}

TEST_P(IncrementalDecoding, ReorderSelectsAndDuplicatesRows) {
  auto state = m.model->start(m.arena, batch.src, batch.src_lengths);
  step_and_compare(*state, {0, 1, 2}, 0);
  step_and_compare(*state, {0, 1, 2}, 1);
  m.model->reorder(*state, {2, 0, 0, 1});
  ASSERT_EQ(state->rows(), 4);
  step_and_compare(*state, {2, 0, 0, 1}, 2);
  m.model->reorder(*state, {1});  // keeps sentence 0
  step_and_compare(*state, {0}, 3);
}

INSTANTIATE_TEST_SUITE_P(Models, IncrementalDecoding, ::testing::ValuesIn(testing::model_kinds()));

}  // namespace
}  // namespace sl
