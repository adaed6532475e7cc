#include "models/transformer_model.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"

namespace sl {

TransformerModel::TransformerModel(int vocab_size, const TransformerConfig& cfg)
    : vocab_(vocab_size), cfg_(cfg) {
  if (cfg.heads < 1 || cfg.d_model % cfg.heads != 0)
    throw std::invalid_argument("TransformerModel: heads " + std::to_string(cfg.heads) +
                                " does not divide d_model " + std::to_string(cfg.d_model));
}

TransformerModel::Attention TransformerModel::declare_attention(ParameterArena& arena,
                                                                const std::string& name) {
  const int D = cfg_.d_model;
  const ParamInit qkv = cfg_.fused_qkv_init ? ParamInit::GlorotFusedQkv : ParamInit::GlorotUniform;
  return {declare_linear(plan_, arena, name + "/q", D, D, true, qkv),
          declare_linear(plan_, arena, name + "/k", D, D, true, qkv),
          declare_linear(plan_, arena, name + "/v", D, D, true, qkv),
          declare_linear(plan_, arena, name + "/o", D, D)};
}

TransformerModel::FeedForward TransformerModel::declare_feed_forward(ParameterArena& arena,
                                                                     const std::string& name) {
  return {declare_linear(plan_, arena, name + "/in", cfg_.d_model, cfg_.ff),
          declare_linear(plan_, arena, name + "/out", cfg_.ff, cfg_.d_model)};
}

void TransformerModel::declare(ParameterArena& arena) {
  if (!plan_.empty()) throw std::logic_error("TransformerModel::declare called twice");
  const int D = cfg_.d_model;
  const EmbeddingTables tables =
      declare_embedding_tables(plan_, arena, cfg_.tied_embeddings, cfg_.emb_init, vocab_, D);
  src_embedding_ = tables.src;
  tgt_embedding_ = tables.tgt;
  output_w_ = tables.output_w;
  output_b_ = tables.output_b;
  for (int i = 0; i < cfg_.encoder_layers; ++i) {
    const std::string n = "encoder/layer" + std::to_string(i);
    EncoderLayer l;
    l.self = declare_attention(arena, n + "/self_attention");
    l.self_norm = declare_layer_norm(plan_, arena, n + "/self_attention_norm", D);
    l.ffn = declare_feed_forward(arena, n + "/ffn");
    l.ffn_norm = declare_layer_norm(plan_, arena, n + "/ffn_norm", D);
    encoder_layers_.push_back(l);
  }
  for (int i = 0; i < cfg_.decoder_layers; ++i) {
    const std::string n = "decoder/layer" + std::to_string(i);
    DecoderLayer l;
    l.self = declare_attention(arena, n + "/self_attention");
    l.self_norm = declare_layer_norm(plan_, arena, n + "/self_attention_norm", D);
    l.cross = declare_attention(arena, n + "/cross_attention");
    l.cross_norm = declare_layer_norm(plan_, arena, n + "/cross_attention_norm", D);
    l.ffn = declare_feed_forward(arena, n + "/ffn");
    l.ffn_norm = declare_layer_norm(plan_, arena, n + "/ffn_norm", D);
    decoder_layers_.push_back(l);
  }
  if (cfg_.pre_norm) {
    encoder_norm_ = declare_layer_norm(plan_, arena, "encoder/final_norm", D);
    decoder_norm_ = declare_layer_norm(plan_, arena, "decoder/final_norm", D);
  }
}

Var TransformerModel::embed(ParameterVars& p, int table, const Tensor& ids,
                            int first_position) const {
  const int T = static_cast<int>(ids.shape()[1]);
  if (first_position + T > cfg_.max_length)
    throw std::invalid_argument("transformer: sequence of length " +
                                std::to_string(first_position + T) + " exceeds max_length " +
                                std::to_string(cfg_.max_length));
  Graph& g = p.graph();
  Var e = ops::scale(ops::embedding(p[table], ids), std::sqrt(static_cast<float>(cfg_.d_model)));
  e = ops::add(e, g.constant(positions(g.device(), first_position, T)));
  return ops::dropout(e, cfg_.dropout);
}

Tensor TransformerModel::positions(Device& dev, int first, int T) const {
  std::lock_guard<std::mutex> lock(positions_mu_);
  if (!positions_.defined() || &positions_.device() != &dev)
    positions_ = sinusoidal_positions(dev, 0, cfg_.max_length, cfg_.d_model);
  return positions_.slice_view(static_cast<int64_t>(first) * cfg_.d_model, Shape{T, cfg_.d_model});
}

TransformerModel::KeyValues TransformerModel::project_kv(ParameterVars& p, const Attention& a,
                                                         const Var& x) const {
  return {apply_linear(p, a.k, x), apply_linear(p, a.v, x)};
}

Var TransformerModel::attend(ParameterVars& p, const Attention& a, const Var& x,
                             const KeyValues& kv, const Tensor& key_lengths, bool causal) const {
  const float inv_sqrt_dh = 1.0f / std::sqrt(static_cast<float>(cfg_.d_model / cfg_.heads));
  // The heads stay in place in the [B, T, d_model] projections (ops::head_scores /
  // head_context): no split or merge copies.
  Var q = ops::scale(apply_linear(p, a.q, x), inv_sqrt_dh);
  Var w = ops::attention_softmax(ops::head_scores(q, kv.k, cfg_.heads), key_lengths, causal);
  w = ops::dropout(w, cfg_.attention_dropout);
  return apply_linear(p, a.o, ops::head_context(w, kv.v, cfg_.heads));
}

Var TransformerModel::feed_forward(ParameterVars& p, const FeedForward& f, const Var& x) const {
  Var h = ops::dropout(ops::relu(apply_linear(p, f.in, x)), cfg_.relu_dropout);
  return apply_linear(p, f.out, h);
}

Var TransformerModel::sublayer_input(ParameterVars& p, const LayerNormParams& n,
                                     const Var& x) const {
  return cfg_.pre_norm ? apply_layer_norm(p, n, x) : x;
}

Var TransformerModel::sublayer_output(ParameterVars& p, const LayerNormParams& n, const Var& x,
                                      const Var& y) const {
  Var r = ops::add(x, ops::dropout(y, cfg_.dropout));
  return cfg_.pre_norm ? r : apply_layer_norm(p, n, r);
}

Var TransformerModel::encoder(ParameterVars& p, const Tensor& src,
                              const Tensor& src_lengths) const {
  Var x = embed(p, src_embedding_, src, 0);
  for (const EncoderLayer& l : encoder_layers_) {
    Var h = sublayer_input(p, l.self_norm, x);
    x = sublayer_output(p, l.self_norm, x,
                        attend(p, l.self, h, project_kv(p, l.self, h), src_lengths, false));
    h = sublayer_input(p, l.ffn_norm, x);
    x = sublayer_output(p, l.ffn_norm, x, feed_forward(p, l.ffn, h));
  }
  return cfg_.pre_norm ? apply_layer_norm(p, encoder_norm_, x) : x;
}

Var TransformerModel::decoder_layer(ParameterVars& p, const DecoderLayer& l, Var x,
                                    const KeyValues& cross, const Tensor& src_lengths,
                                    SelfCache* cache) const {
  Graph& g = p.graph();
  Var h = sublayer_input(p, l.self_norm, x);
  KeyValues self = project_kv(p, l.self, h);
  if (cache) {
    if (cache->k.defined()) {
      self.k = ops::concat({g.constant(cache->k), self.k}, 1);
      self.v = ops::concat({g.constant(cache->v), self.v}, 1);
    }
    cache->k = self.k.value();
    cache->v = self.v.value();
  }
  // Every self-attention key is real (no key lengths: nothing to upload): in training, target
  // padding follows the real tokens, so the causal mask alone keeps real positions from
  // seeing it; with a cache the single query may see every key so far (no causal mask).
  x = sublayer_output(p, l.self_norm, x, attend(p, l.self, h, self, Tensor(), cache == nullptr));
  h = sublayer_input(p, l.cross_norm, x);
  x = sublayer_output(p, l.cross_norm, x, attend(p, l.cross, h, cross, src_lengths, false));
  h = sublayer_input(p, l.ffn_norm, x);
  return sublayer_output(p, l.ffn_norm, x, feed_forward(p, l.ffn, h));
}

Var TransformerModel::decoder_output(ParameterVars& p, const Var& x) const {
  Var h = cfg_.pre_norm ? apply_layer_norm(p, decoder_norm_, x) : x;
  return ops::linear(h, p[output_w_], p[output_b_], /*trans_b=*/true);
}

Var TransformerModel::encode(Graph& g, const ParameterArena& arena, const Tensor& src,
                             const Tensor& src_lengths) const {
  ParameterVars p(g, arena);
  return encoder(p, src, src_lengths);
}

Var TransformerModel::logits(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const {
  ParameterVars p(g, arena);
  Var enc = encoder(p, batch.src, batch.src_lengths);
  Var x = embed(p, tgt_embedding_, batch.tgt_in, 0);
  for (const DecoderLayer& l : decoder_layers_)
    x = decoder_layer(p, l, x, project_kv(p, l.cross, enc), batch.src_lengths, nullptr);
  return decoder_output(p, x);
}

}  // namespace sl
