#include "eval/decoding/beam_search.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/layers.h"
#include "tensor/row_order.h"

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

// A continuation: hypothesis h of its beam extended by token v, c = h * V + v, and its score.
struct Candidate {
  float score;
  int c;
};

// The best k candidates by (score descending, c ascending): deterministic ties.
void keep_best(std::vector<Candidate>& cands, int k) {
  k = std::min<int>(k, static_cast<int>(cands.size()));
  std::partial_sort(cands.begin(), cands.begin() + k, cands.end(),
                    [](const Candidate& a, const Candidate& b) {
                      return ranks_before(a.score, a.c, b.score, b.c);
                    });
  cands.resize(static_cast<size_t>(k));
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
  std::vector<float> live_scores;
  std::vector<Candidate> cands;
  while (!prev.empty()) {
    // Each state row's best continuations, chosen on the device by score = its hypothesis's
    // score + log p(v): only k per row come back, not the [rows, V] log-probabilities. A
    // sentence's best `keep` over all its rows are among its rows' best `keep` each (one
    // outside a row's best keep has keep better ones in that row), so merging those gives
    // exactly the best keep of all rows x V, in the same order (same scores, same ties).
    Device& dev = arena.device();
    const int rows = static_cast<int>(prev.size());
    live_scores.clear();
    int k = 0;
    for (const SentenceBeam& beam : beams) {
      for (const LiveHypothesis& h : beam.live) live_scores.push_back(h.score);
      // Every finished hypothesis takes one place of the beam away.
      if (!beam.live.empty()) k = std::max(k, o.beam_size - static_cast<int>(beam.finished.size()));
    }
    k = std::min(k, V);
    Tensor d_live = Tensor::from_host(dev, Shape{rows}, live_scores);  // before the step is queued
    const Tensor logp = model.step(*state, prev);
    Tensor d_score = Tensor::empty(dev, Shape{rows, k});
    Tensor d_token = Tensor::empty(dev, Shape{rows, k}, DType::I32);
    dev.row_top_k(rows, V, logp.f32(), d_live.f32(), k, d_score.f32(), d_token.i32());
    const std::vector<float> score = d_score.to_host();
    const std::vector<int32_t> token = d_token.to_host_ids();
    std::vector<int32_t> next_rows, next_prev;
    size_t row0 = 0;  // first state row of the current sentence
    for (SentenceBeam& beam : beams) {
      const size_t n = beam.live.size();
      if (n == 0) continue;
      const int keep = o.beam_size - static_cast<int>(beam.finished.size());
      cands.clear();
      for (size_t h = 0; h < n; ++h)
        for (int j = 0; j < std::min(keep, k); ++j) {
          const size_t at = (row0 + h) * static_cast<size_t>(k) + j;
          cands.push_back({score[at], static_cast<int>(h) * V + token[at]});
        }
      keep_best(cands, keep);
      std::vector<LiveHypothesis> next;
      for (const Candidate& cand : cands) {
        const int h = cand.c / V, v = cand.c % V;
        LiveHypothesis x{beam.live[h].tokens, cand.score};
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
