#include "eval/decoding/greedy_decoder.h"

#include "models/layers.h"

namespace sl {

std::vector<Hypothesis> greedy_decode(const Seq2SeqModel& model, const ParameterArena& arena,
                                      const SourceBatch& batch, const DecodeOptions& o) {
  const std::vector<int32_t> src_len = host_lengths(batch.src_lengths, batch.S);
  const int V = model.vocab_size();
  std::vector<Hypothesis> out(static_cast<size_t>(batch.B));
  std::vector<int> active(static_cast<size_t>(batch.B));  // sentence of each state row
  for (int i = 0; i < batch.B; ++i) active[i] = i;
  std::vector<int32_t> prev(static_cast<size_t>(batch.B), o.bos_id);
  std::unique_ptr<DecoderState> state = model.start(arena, batch.src, batch.src_lengths);
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

}  // namespace sl
