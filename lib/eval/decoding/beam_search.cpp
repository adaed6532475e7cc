#include "eval/decoding/beam_search.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/layers.h"

namespace sl {

namespace {

struct LiveHypothesis {
  std::vector<int32_t> tokens;
  float score = 0.0f;
};

struct SentenceBeam {
  std::vector<LiveHypothesis> live;  // one state row each, in order
  std::vector<Hypothesis> finished;
  int max_length = 1;
};

// The best k of n candidates by (score descending, index ascending): deterministic ties.
std::vector<int> top_k(const std::vector<float>& scores, int k) {
  std::vector<int> idx(scores.size());
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min<int>(k, static_cast<int>(idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

}  // namespace

std::vector<Hypothesis> beam_search(const Seq2SeqModel& model, const ParameterArena& arena,
                                    const SourceBatch& batch, const DecodeOptions& o) {
  if (o.beam_size < 1)
    throw std::invalid_argument("beam_search: beam size " + std::to_string(o.beam_size) + " < 1");
  const std::vector<int32_t> src_len = host_lengths(batch.src_lengths, batch.S);
  const int V = model.vocab_size();
  std::vector<SentenceBeam> beams(static_cast<size_t>(batch.B));
  for (int i = 0; i < batch.B; ++i) {
    beams[i].live.resize(1);
    beams[i].max_length = max_output_length(o, src_len[i], model);
  }
  std::vector<int32_t> prev(static_cast<size_t>(batch.B), o.bos_id);
  std::unique_ptr<DecoderState> state = model.start(arena, batch.src, batch.src_lengths);
  std::vector<float> scores;
  while (!prev.empty()) {
    const std::vector<float> logp = model.step(*state, prev).to_host();
    std::vector<int32_t> next_rows, next_prev;
    size_t row0 = 0;  // first state row of the current sentence
    for (SentenceBeam& beam : beams) {
      const size_t n = beam.live.size();
      if (n == 0) continue;
      scores.resize(n * static_cast<size_t>(V));
      for (size_t h = 0; h < n; ++h)
        for (int v = 0; v < V; ++v)
          scores[h * V + v] = beam.live[h].score + logp[(row0 + h) * V + v];
      // Every finished hypothesis takes one place of the beam away.
      const int keep = o.beam_size - static_cast<int>(beam.finished.size());
      std::vector<LiveHypothesis> next;
      for (int c : top_k(scores, keep)) {
        const int h = c / V, v = c % V;
        LiveHypothesis x{beam.live[h].tokens, scores[c]};
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
  out.reserve(beams.size());
  for (SentenceBeam& beam : beams) {
    size_t best = 0;
    for (size_t k = 1; k < beam.finished.size(); ++k)
      if (beam.finished[k].normalized_score > beam.finished[best].normalized_score) best = k;
    out.push_back(std::move(beam.finished[best]));
  }
  return out;
}

}  // namespace sl
