// Incremental decoding for the RNN: the encoder and the attention keys are computed once;
// a step advances the cGRU state of every row by one token.
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "models/rnn_model.h"

namespace sl {

struct RnnModel::State final : DecoderState {
  Tensor states;       // [rows, S, C]
  Tensor keys;         // [rows, S, A]
  Tensor src_lengths;  // int32 [rows]
  Tensor hidden;       // [rows, dec_dim]
  const ParameterArena* arena = nullptr;
  int n_rows = 0;
  int rows() const override { return n_rows; }
};

std::unique_ptr<DecoderState> RnnModel::start(const ParameterArena& arena, const Tensor& src,
                                              const Tensor& src_lengths) const {
  const Lengths lengths = lengths_of(src_lengths, static_cast<int>(src.shape()[1]));
  Graph g(arena.device(), /*dropout_enabled=*/false, 0);
  ParameterVars p(g, arena);
  Var states = encoder(p, src, lengths);
  const Memory m = memory(p, states, src_lengths);
  auto state = std::make_unique<State>();
  state->states = states.value();
  state->keys = m.keys.value();
  state->src_lengths = src_lengths;
  state->hidden = initial_state(p, states, lengths).value();
  state->arena = &arena;
  state->n_rows = static_cast<int>(src.shape()[0]);
  return state;
}

Tensor RnnModel::step(DecoderState& base, const std::vector<int32_t>& prev_tokens) const {
  State& s = dynamic_cast<State&>(base);
  check_step_tokens("RnnModel", prev_tokens.size(), s.n_rows);
  Graph g(s.arena->device(), /*dropout_enabled=*/false, 0);
  ParameterVars p(g, *s.arena);
  Tensor ids = Tensor::from_host_ids(g.device(), Shape{s.n_rows}, prev_tokens);
  Var y = embed(p, tgt_embedding_, ids);  // [rows, E]
  const Memory m{g.constant(s.states), g.constant(s.keys), s.src_lengths};
  DecoderProducts dp = decoder_products(p);
  StepOutput o = decoder_step(p, dp, apply_linear(p, dec_gru1_.input, y), g.constant(s.hidden), m);
  s.hidden = o.state.value();
  Var logp = ops::log_softmax(output_logits(p, ops::concat({o.state, o.context, y}, 1)));
  return logp.value();
}

void RnnModel::reorder(DecoderState& base, const std::vector<int32_t>& rows) const {
  State& s = dynamic_cast<State&>(base);
  s.states = select_rows(s.states, rows);
  s.keys = select_rows(s.keys, rows);
  s.src_lengths = select_rows(s.src_lengths, rows);
  s.hidden = select_rows(s.hidden, rows);
  s.n_rows = static_cast<int>(rows.size());
}

}  // namespace sl
