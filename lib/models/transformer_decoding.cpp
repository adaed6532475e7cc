// Incremental decoding for the Transformer: the encoder runs once, each decoder layer keeps
// the cross-attention keys/values of the source and the self-attention keys/values of the
// target positions so far, so step t attends from one new position.
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "models/transformer_model.h"

namespace sl {

struct TransformerModel::State final : DecoderState {
  std::vector<Tensor> cross_k, cross_v;  // per decoder layer [rows, heads, S, Dh]
  std::vector<SelfCache> self;           // per decoder layer [rows, heads, position, Dh]
  Tensor src_lengths;                    // int32 [rows]
  const ParameterArena* arena = nullptr;
  int position = 0;  // target positions already fed
  int n_rows = 0;
  int rows() const override { return n_rows; }
};

std::unique_ptr<DecoderState> TransformerModel::start(const ParameterArena& arena,
                                                      const Tensor& src,
                                                      const Tensor& src_lengths) const {
  host_lengths(src_lengths, static_cast<int>(src.shape()[1]));
  Graph g(arena.device(), /*dropout_enabled=*/false, 0);
  ParameterVars p(g, arena);
  Var enc = encoder(p, src, src_lengths);
  auto state = std::make_unique<State>();
  for (const DecoderLayer& l : decoder_layers_) {
    KeyValues kv = project_kv(p, l.cross, enc);
    state->cross_k.push_back(kv.k.value());
    state->cross_v.push_back(kv.v.value());
  }
  state->self.resize(decoder_layers_.size());
  state->src_lengths = src_lengths;
  state->arena = &arena;
  state->n_rows = static_cast<int>(src.shape()[0]);
  return state;
}

Tensor TransformerModel::step(DecoderState& base, const std::vector<int32_t>& prev_tokens) const {
  State& s = dynamic_cast<State&>(base);
  check_step_tokens("TransformerModel", prev_tokens.size(), s.n_rows);
  Graph g(s.arena->device(), /*dropout_enabled=*/false, 0);
  ParameterVars p(g, *s.arena);
  Tensor ids = Tensor::from_host_ids(g.device(), Shape{s.n_rows, 1}, prev_tokens);
  Var x = embed(p, tgt_embedding_, ids, s.position);
  for (size_t i = 0; i < decoder_layers_.size(); ++i) {
    KeyValues cross{g.constant(s.cross_k[i]), g.constant(s.cross_v[i])};
    x = decoder_layer(p, decoder_layers_[i], x, cross, s.src_lengths, &s.self[i]);
  }
  ++s.position;
  Var logp = ops::log_softmax(decoder_output(p, x));
  return logp.value().view(Shape{s.n_rows, vocab_});
}

void TransformerModel::reorder(DecoderState& base, const std::vector<int32_t>& rows) const {
  State& s = dynamic_cast<State&>(base);
  for (size_t i = 0; i < s.cross_k.size(); ++i) {
    s.cross_k[i] = select_rows(s.cross_k[i], rows);
    s.cross_v[i] = select_rows(s.cross_v[i], rows);
    if (s.self[i].k.defined()) {
      s.self[i].k = select_rows(s.self[i].k, rows);
      s.self[i].v = select_rows(s.self[i].v, rows);
    }
  }
  s.src_lengths = select_rows(s.src_lengths, rows);
  s.n_rows = static_cast<int>(rows.size());
}

}  // namespace sl
