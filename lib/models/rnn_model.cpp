#include "models/rnn_model.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"

namespace sl {

RnnModel::RnnModel(int vocab_size, const RnnConfig& cfg) : vocab_(vocab_size), cfg_(cfg) {
  if (cfg.emb_dim < 1 || cfg.enc_dim < 1 || cfg.dec_dim < 1 || cfg.enc_layers < 1)
    throw std::invalid_argument("RnnModel: dimensions and enc_layers must be >= 1");
}

RnnModel::Gru RnnModel::declare_gru(ParameterArena& arena, const std::string& name, int in,
                                    int dim) {
  return {declare_linear(plan_, arena, name + "/input", in, 3 * dim),
          declare_linear(plan_, arena, name + "/hidden", dim, 3 * dim), dim};
}

void RnnModel::declare(ParameterArena& arena) {
  if (!plan_.empty()) throw std::logic_error("RnnModel::declare called twice");
  const int E = cfg_.emb_dim, H = cfg_.enc_dim, C = context_dim(), D = cfg_.dec_dim;
  const EmbeddingTables tables =
      declare_embedding_tables(plan_, arena, cfg_.tied_embeddings, cfg_.emb_init, vocab_, E);
  src_embedding_ = tables.src;
  tgt_embedding_ = tables.tgt;
  output_w_ = tables.output_w;
  output_b_ = tables.output_b;
  enc_forward_ = declare_gru(arena, "encoder/forward", E, H);
  enc_backward_ = declare_gru(arena, "encoder/backward", E, H);
  for (int l = 1; l < cfg_.enc_layers; ++l)
    enc_extra_.push_back(declare_gru(arena, "encoder/layer" + std::to_string(l), C, C));
  init_ = declare_linear(plan_, arena, "decoder/init", C, D);
  dec_gru1_ = declare_gru(arena, "decoder/gru1", E, D);
  att_query_ = declare_linear(plan_, arena, "decoder/attention/query", D, D, false);
  att_keys_ = declare_linear(plan_, arena, "decoder/attention/keys", C, D);
  att_score_ = declare_linear(plan_, arena, "decoder/attention/score", D, 1, false);
  dec_gru2_ = declare_gru(arena, "decoder/gru2", C, D);
  deep_output_ = declare_linear(plan_, arena, "decoder/deep_output", D + C + E, E);
}

RnnModel::Lengths RnnModel::lengths_of(const Tensor& src_lengths, int S) {
  return {src_lengths, host_lengths(src_lengths, S)};
}

Var RnnModel::run_gru(ParameterVars& p, const Gru& gru, const Var& x, const Lengths& lengths,
                      bool reverse) const {
  Graph& g = p.graph();
  const int B = static_cast<int>(x.shape()[0]), S = static_cast<int>(x.shape()[1]);
  const int64_t H = gru.dim;
  Var xw = apply_linear(p, gru.input, x);  // one product for every time step
  Var h = g.constant(g.zeros(Shape{B, H}));
  ops::StepProducts hidden = step_linear(p, gru.hidden);
  std::vector<Var> outputs(static_cast<size_t>(S));
  for (int i = 0; i < S; ++i) {
    const int t = reverse ? S - 1 - i : i;
    int live = 0;
    for (int b = 0; b < B; ++b) live += t < lengths.host[b];
    // Rows past their length keep their state: forward rows carry their last real state,
    // backward rows stay at the initial state until their last real token.
    if (live > 0) {
      Var xw_t = ops::reshape(ops::slice(xw, 1, t, 1), Shape{B, 3 * H});
      Var h_new = ops::gru_cell(xw_t, hidden(h), h);
      if (live < B) {
        Tensor mask = Tensor::empty(g.device(), Shape{B});  // 1 for rows with t < length
        g.device().length_mask(B, 1, t, lengths.device.i32(), false, mask.f32());
        h_new = ops::blend_rows(mask, h_new, h);
      }
      h = h_new;
    }
    outputs[static_cast<size_t>(t)] = ops::reshape(h, Shape{B, 1, H});
  }
  return ops::concat(outputs, 1);
}

Var RnnModel::embed(ParameterVars& p, int table, const Tensor& ids) const {
  Var rows = ops::embedding(p[table], ids);
  if (!cfg_.scale_embeddings) return rows;
  return ops::scale(rows, static_cast<float>(std::sqrt(static_cast<double>(cfg_.emb_dim))));
}

Var RnnModel::encoder(ParameterVars& p, const Tensor& src, const Lengths& lengths) const {
  Var emb = ops::dropout(embed(p, src_embedding_, src), cfg_.dropout);
  Var states = ops::concat({run_gru(p, enc_forward_, emb, lengths, false),
                            run_gru(p, enc_backward_, emb, lengths, true)},
                           2);
  for (const Gru& gru : enc_extra_)
    states = ops::add(states, run_gru(p, gru, states, lengths, false));
  return states;
}

RnnModel::Memory RnnModel::memory(ParameterVars& p, const Var& states,
                                  const Tensor& lengths) const {
  return {states, apply_linear(p, att_keys_, states), lengths};
}

Var RnnModel::initial_state(ParameterVars& p, const Var& states, const Lengths& lengths) const {
  // Mean over real positions as a product with per-sentence weights 1/len (0 on padding).
  const int B = static_cast<int>(states.shape()[0]), S = static_cast<int>(states.shape()[1]);
  Graph& g = p.graph();
  Tensor w = Tensor::empty(g.device(), Shape{B, 1, S});
  g.device().length_mask(B, S, 0, lengths.device.i32(), /*mean=*/true, w.f32());
  Var mean = ops::bmm(g.constant(w), states);
  return ops::tanh(apply_linear(p, init_, ops::reshape(mean, Shape{B, context_dim()})));
}

Var RnnModel::attend(ParameterVars& p, ops::StepProducts& query_projection, const Var& query,
                     const Memory& m) const {
  const int64_t B = m.states.shape()[0], S = m.states.shape()[1];
  // scores = tanh(keys + W_q query) v, fused (see ops::additive_attention_scores)
  Var scores = ops::additive_attention_scores(m.keys, query_projection(query),
                                              p[att_score_.w]);  // [B, S, 1]
  if (att_score_.b >= 0) scores = ops::add(scores, p[att_score_.b]);
  Var w = ops::attention_softmax(ops::reshape(scores, Shape{B, 1, 1, S}), m.lengths, false);
  Var c = ops::bmm(ops::reshape(w, Shape{B, 1, S}), m.states);  // [B, 1, C]
  return ops::reshape(c, Shape{B, context_dim()});
}

RnnModel::DecoderProducts RnnModel::decoder_products(ParameterVars& p) const {
  return {step_linear(p, dec_gru1_.hidden), step_linear(p, att_query_),
          step_linear(p, dec_gru2_.input), step_linear(p, dec_gru2_.hidden)};
}

RnnModel::StepOutput RnnModel::decoder_step(ParameterVars& p, DecoderProducts& dp, const Var& xw1,
                                            const Var& state, const Memory& m) const {
  Var s1 = ops::gru_cell(xw1, dp.gru1_hidden(state), state);
  Var c = attend(p, dp.att_query, s1, m);
  Var s2 = ops::gru_cell(dp.gru2_input(c), dp.gru2_hidden(s1), s1);
  return {s2, c};
}

Var RnnModel::output_logits(ParameterVars& p, const Var& features) const {
  Var o = apply_linear(p, deep_output_, features);
  Var t = ops::dropout(cfg_.linear_output ? o : ops::tanh(o), cfg_.dropout);
  return ops::linear(t, p[output_w_], p[output_b_], /*trans_b=*/true);
}

Var RnnModel::encode(Graph& g, const ParameterArena& arena, const Tensor& src,
                     const Tensor& src_lengths) const {
  ParameterVars p(g, arena);
  return encoder(p, src, lengths_of(src_lengths, static_cast<int>(src.shape()[1])));
}

Var RnnModel::logits(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const {
  ParameterVars p(g, arena);
  const Lengths lengths = lengths_of(batch.src_lengths, batch.S);
  Var states = encoder(p, batch.src, lengths);
  const Memory m = memory(p, states, batch.src_lengths);
  Var s = initial_state(p, states, lengths);
  Var y = ops::dropout(embed(p, tgt_embedding_, batch.tgt_in), cfg_.dropout);
  Var xw1 = apply_linear(p, dec_gru1_.input, y);  // [B, T, 3 dec_dim]
  const int64_t B = batch.B, D = cfg_.dec_dim, C = context_dim();
  std::vector<Var> dec_states, contexts;
  DecoderProducts dp = decoder_products(p);
  for (int t = 0; t < batch.T; ++t) {
    StepOutput o =
        decoder_step(p, dp, ops::reshape(ops::slice(xw1, 1, t, 1), Shape{B, 3 * D}), s, m);
    s = o.state;
    dec_states.push_back(ops::reshape(o.state, Shape{B, 1, D}));
    contexts.push_back(ops::reshape(o.context, Shape{B, 1, C}));
  }
  Var features = ops::concat({ops::concat(dec_states, 1), ops::concat(contexts, 1), y}, 2);
  return output_logits(p, features);
}

}  // namespace sl
