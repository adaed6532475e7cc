// Issue 32: a training step's forward and backward make no upload and no read-back once the
// batch is on the device (on a GPU each would wait for all queued work), and decoding takes
// its choice on the device -- with exactly the hypotheses of the host-side decoders it
// replaced, which live on here as the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "eval/decoding/beam_search.h"
#include "eval/decoding/greedy_decoder.h"
#include "model_test_util.h"
#include "models/layers.h"
#include "tensor/profiling_device.h"

namespace sl {
namespace {

using testing::ModelUnderTest;

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, ForwardAndBackwardNeitherUploadNorReadBack) {
  ProfilingDevice dev(cpu_device());  // counts every Device call
  const ModelConfig cfg = testing::tiny_config(GetParam());
  auto model = make_model(cfg);
  ParameterArena arena(dev);
  model->declare(arena);
  arena.allocate();
  model->initialize(arena, 5);
  // Sentences of different lengths: the RNN's padding masks and mean weights are needed.
  const auto src = testing::random_sentences(5, 2, 9, 61);
  const auto tgt = testing::random_sentences(5, 1, 7, 62);
  const ModelBatch batch = make_model_batch(dev, src, tgt, testing::kBos, testing::kEos);
  for (int step = 0; step < 2; ++step) {
    dev.reset();  // step 1: what every step after the first does
    arena.zero_grads();
    Graph g(dev, /*dropout_enabled=*/true, 3 + step);
    Var loss = model->loss(g, arena, batch);
    g.backward(loss);
    if (step == 1) {
      EXPECT_EQ(0u, dev.kernels().count("from_host")) << "an upload inside the step";
      EXPECT_EQ(0u, dev.kernels().count("to_host")) << "a read-back inside the step";
    }
  }
}

// The decoders before issue 32, which read every step's [rows, V] log-probabilities back.
std::vector<Hypothesis> reference_greedy(const Seq2SeqModel& model, const ParameterArena& arena,
                                         const SourceBatch& batch, const DecodeOptions& o) {
  const std::vector<int32_t> src_len = host_lengths(batch.src_lengths, batch.S);
  const int V = model.vocab_size();
  std::vector<Hypothesis> out(static_cast<size_t>(batch.B));
  std::vector<int> active(static_cast<size_t>(batch.B));
  std::iota(active.begin(), active.end(), 0);
  std::vector<int32_t> prev(static_cast<size_t>(batch.B), o.bos_id);
  auto state = model.start(arena, batch.src, batch.src_lengths);
  while (!active.empty()) {
    const std::vector<float> logp = model.step(*state, prev).to_host();
    std::vector<int> next_active;
    std::vector<int32_t> keep_rows, next_prev;
    for (size_t r = 0; r < active.size(); ++r) {
      const float* row = logp.data() + r * static_cast<size_t>(V);
      int best = 0;
      for (int v = 1; v < V; ++v)
        if (row[v] > row[best]) best = v;
      Hypothesis& h = out[static_cast<size_t>(active[r])];
      h.score += row[best];
      if (best == o.eos_id) {
        h.ended_with_eos = true;
        continue;
      }
      h.tokens.push_back(best);
      if (static_cast<int>(h.tokens.size()) >= max_output_length(o, src_len[active[r]], model))
        continue;
      keep_rows.push_back(static_cast<int32_t>(r));
      next_active.push_back(active[r]);
      next_prev.push_back(best);
    }
    if (keep_rows.size() != active.size() && !keep_rows.empty()) model.reorder(*state, keep_rows);
    active.swap(next_active);
    prev.swap(next_prev);
  }
  for (Hypothesis& h : out)
    h.normalized_score = normalized_score(
        h.score, static_cast<int>(h.tokens.size()) + (h.ended_with_eos ? 1 : 0), o.length_alpha);
  return out;
}

std::vector<Hypothesis> reference_beam(const Seq2SeqModel& model, const ParameterArena& arena,
                                       const SourceBatch& batch, const DecodeOptions& o) {
  struct Live {
    std::vector<int32_t> tokens;
    float score = 0.0f;
  };
  struct Beam {
    std::vector<Live> live;
    std::vector<Hypothesis> finished;
    int max_length = 1;
  };
  const std::vector<int32_t> src_len = host_lengths(batch.src_lengths, batch.S);
  const int V = model.vocab_size();
  std::vector<Beam> beams(static_cast<size_t>(batch.B));
  for (int i = 0; i < batch.B; ++i) {
    beams[i].live.resize(1);
    beams[i].max_length = max_output_length(o, src_len[i], model);
  }
  std::vector<int32_t> prev(static_cast<size_t>(batch.B), o.bos_id);
  auto state = model.start(arena, batch.src, batch.src_lengths);
  std::vector<float> scores;
  while (!prev.empty()) {
    const std::vector<float> logp = model.step(*state, prev).to_host();
    std::vector<int32_t> next_rows, next_prev;
    size_t row0 = 0;
    for (Beam& beam : beams) {
      const size_t n = beam.live.size();
      if (n == 0) continue;
      scores.resize(n * static_cast<size_t>(V));
      for (size_t h = 0; h < n; ++h)
        for (int v = 0; v < V; ++v)
          scores[h * V + v] = beam.live[h].score + logp[(row0 + h) * V + v];
      const int keep = o.beam_size - static_cast<int>(beam.finished.size());
      std::vector<int> idx(scores.size());
      std::iota(idx.begin(), idx.end(), 0);
      const int k = std::min<int>(keep, static_cast<int>(idx.size()));
      std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
      });
      idx.resize(static_cast<size_t>(k));
      std::vector<Live> next;
      for (int c : idx) {
        const int h = c / V, v = c % V;
        Live x{beam.live[h].tokens, scores[c]};
        if (v != o.eos_id) x.tokens.push_back(v);
        const bool eos = v == o.eos_id;
        if (eos || static_cast<int>(x.tokens.size()) >= beam.max_length) {
          const int len = static_cast<int>(x.tokens.size()) + (eos ? 1 : 0);
          beam.finished.push_back(
              {std::move(x.tokens), x.score, normalized_score(x.score, len, o.length_alpha), eos});
          continue;
        }
        next_rows.push_back(static_cast<int32_t>(row0 + h));
        next_prev.push_back(v);
        next.push_back(std::move(x));
      }
      row0 += n;
      beam.live.swap(next);
    }
    bool identity = next_rows.size() == prev.size();
    for (size_t r = 0; identity && r < next_rows.size(); ++r)
      identity = next_rows[r] == static_cast<int32_t>(r);
    if (!next_rows.empty() && !identity) model.reorder(*state, next_rows);
    prev.swap(next_prev);
  }
  std::vector<Hypothesis> out;
  for (Beam& beam : beams) {
    size_t best = 0;
    for (size_t k = 1; k < beam.finished.size(); ++k)
      if (beam.finished[k].normalized_score > beam.finished[best].normalized_score) best = k;
    out.push_back(std::move(beam.finished[best]));
  }
  return out;
}

void expect_same(const std::vector<Hypothesis>& ref, const std::vector<Hypothesis>& got,
                 const std::string& what) {
  ASSERT_EQ(ref.size(), got.size()) << what;
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_EQ(ref[i].tokens, got[i].tokens) << what << " sentence " << i;
    EXPECT_EQ(ref[i].score, got[i].score) << what << " sentence " << i;
    EXPECT_EQ(ref[i].normalized_score, got[i].normalized_score) << what << " sentence " << i;
    EXPECT_EQ(ref[i].ended_with_eos, got[i].ended_with_eos) << what << " sentence " << i;
  }
}

TEST_P(EveryModel, DecodersChooseOnTheDeviceWhatTheHostDecodersChose) {
  const auto sentences = testing::random_sentences(7, 2, 8, 63);
  for (int steps : {0, 25}) {
    ModelUnderTest m(testing::tiny_config(GetParam()), 23);
    if (steps) testing::train_adam(m, testing::copy_batch(sentences), steps);
    const SourceBatch src = make_source_batch(cpu_device(), sentences);
    DecodeOptions o;
    o.bos_id = testing::kBos;
    o.eos_id = testing::kEos;
    o.length_alpha = 0.6f;
    const std::string what = GetParam() + " after " + std::to_string(steps) + " steps";
    expect_same(reference_greedy(*m.model, m.arena, src, o),
                greedy_decode(*m.model, m.arena, src, o), what + ", greedy");
    for (int beam : {1, 2, 5, 20}) {  // 20 > V - finished: rows run out of tokens
      o.beam_size = beam;
      expect_same(reference_beam(*m.model, m.arena, src, o), beam_search(*m.model, m.arena, src, o),
                  what + ", beam " + std::to_string(beam));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, ::testing::ValuesIn(testing::model_kinds()));

}  // namespace
}  // namespace sl
