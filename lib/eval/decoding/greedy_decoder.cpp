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
    // The arg-max of each row on the device: one value and one index per row come back, not
    // the [rows, V] log-probabilities (the first maximum: ties go to the lower token id).
    const Tensor logp = model.step(*state, prev);
    Device& dev = logp.device();
    const int rows = static_cast<int>(active.size());
    Tensor best_logp = Tensor::empty(dev, Shape{rows});
    Tensor best_token = Tensor::empty(dev, Shape{rows}, DType::I32);
    dev.row_top_k(rows, V, logp.f32(), nullptr, 1, best_logp.f32(), best_token.i32());
    const std::vector<float> score = best_logp.to_host();
    const std::vector<int32_t> token = best_token.to_host_ids();
    std::vector<int> next_active;
    std::vector<int32_t> keep_rows, next_prev;
    for (size_t r = 0; r < active.size(); ++r) {
      const int best = token[r];
      Hypothesis& h = out[static_cast<size_t>(active[r])];
      h.score += score[r];
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
