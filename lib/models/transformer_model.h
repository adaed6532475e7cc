#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "models/layers.h"
#include "models/seq2seq_model.h"

namespace sl {

// The Transformer of Vaswani et al. (2017) as Marian builds it: sinusoidal positions,
// embeddings scaled by sqrt(d_model), multi-head attention, ReLU feed-forward, residual +
// layer norm after (post-norm, Marian's default) or before (pre-norm, plus a final layer
// norm) every sub-layer, output layer tied to the target embedding. Decoding keeps each
// layer's self-attention keys/values, so a step costs one position, not the whole prefix.
class TransformerModel final : public Seq2SeqModel {
 public:
  TransformerModel(int vocab_size, const TransformerConfig& cfg);

  std::string name() const override { return "transformer"; }
  int vocab_size() const override { return vocab_; }
  float label_smoothing() const override { return cfg_.label_smoothing; }
  int max_target_length() const override { return cfg_.max_length; }
  int max_source_length() const override { return cfg_.max_length; }
  const TransformerConfig& config() const { return cfg_; }

  void declare(ParameterArena& arena) override;
  Var encode(Graph& g, const ParameterArena& arena, const Tensor& src,
             const Tensor& src_lengths) const override;
  Var logits(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const override;

  std::unique_ptr<DecoderState> start(const ParameterArena& arena, const Tensor& src,
                                      const Tensor& src_lengths) const override;
  Tensor step(DecoderState& state, const std::vector<int32_t>& prev_tokens) const override;
  void reorder(DecoderState& state, const std::vector<int32_t>& rows) const override;

 private:
  struct Attention {
    Linear q, k, v, o;
  };
  struct FeedForward {
    Linear in, out;
  };
  struct EncoderLayer {
    Attention self;
    LayerNormParams self_norm;
    FeedForward ffn;
    LayerNormParams ffn_norm;
  };
  struct DecoderLayer {
    Attention self;
    LayerNormParams self_norm;
    Attention cross;
    LayerNormParams cross_norm;
    FeedForward ffn;
    LayerNormParams ffn_norm;
  };
  struct KeyValues {
    Var k, v;  // [B, Tk, d_model]: head h is columns [h * Dh, (h + 1) * Dh)
  };
  // Self-attention keys/values of the target positions decoded so far.
  struct SelfCache {
    Tensor k, v;
  };
  struct State;

  Attention declare_attention(ParameterArena& arena, const std::string& name);
  FeedForward declare_feed_forward(ParameterArena& arena, const std::string& name);

  Var embed(ParameterVars& p, int table, const Tensor& ids, int first_position) const;
  // Rows [first, first + T) of the sinusoidal table, a view of one [max_length, d_model] table
  // made once per device: computing and uploading the rows every forward made the forward
  // wait (an upload from pageable memory waits for all queued GPU work).
  Tensor positions(Device& dev, int first, int T) const;
  Var encoder(ParameterVars& p, const Tensor& src, const Tensor& src_lengths) const;
  KeyValues project_kv(ParameterVars& p, const Attention& a, const Var& x) const;
  Var attend(ParameterVars& p, const Attention& a, const Var& x, const KeyValues& kv,
             const Tensor& key_lengths, bool causal) const;
  Var feed_forward(ParameterVars& p, const FeedForward& f, const Var& x) const;
  Var sublayer_input(ParameterVars& p, const LayerNormParams& n, const Var& x) const;
  Var sublayer_output(ParameterVars& p, const LayerNormParams& n, const Var& x, const Var& y) const;
  // Training: cache == nullptr and a causal mask over the whole target. Decoding: x is the
  // newest position only and its keys/values are appended to *cache.
  Var decoder_layer(ParameterVars& p, const DecoderLayer& l, Var x, const KeyValues& cross,
                    const Tensor& src_lengths, SelfCache* cache) const;
  Var decoder_output(ParameterVars& p, const Var& x) const;  // final norm + logits

  int vocab_;
  TransformerConfig cfg_;
  int src_embedding_ = -1, tgt_embedding_ = -1, output_w_ = -1, output_b_ = -1;
  LayerNormParams encoder_norm_, decoder_norm_;  // pre-norm only
  std::vector<EncoderLayer> encoder_layers_;
  std::vector<DecoderLayer> decoder_layers_;
  mutable std::mutex positions_mu_;  // a model may be used from several threads
  mutable Tensor positions_;         // see positions()
};

}  // namespace sl
