#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/layers.h"
#include "models/seq2seq_model.h"

namespace sl {

// A Nematus-style attentional GRU encoder-decoder (Marian's s2s with its default cGRU
// decoder), kept minimal:
//   inputs:  embedding rows, times sqrt(emb_dim) with model.emb_scale = "sqrt_dim";
//   encoder: bidirectional GRU over the real positions of each sentence (padding keeps the
//            state: the backward direction starts at each sentence's last token), then
//            enc_layers - 1 forward GRUs with residual connections; states C = 2 * enc_dim.
//   decoder: s_0 = tanh(W mean(encoder states) + b);
//            s'_j = GRU_1(y_{j-1}, s_{j-1}); c_j = additive attention(s'_j, encoder states);
//            s_j = GRU_2(c_j, s'_j);
//            t_j = tanh(W_o [s_j; c_j; y_{j-1}] + b_o) (deep output, emb_dim wide);
//            logits = t_j E^T + b with E the target embedding (or a separate matrix).
class RnnModel final : public Seq2SeqModel {
 public:
  RnnModel(int vocab_size, const RnnConfig& cfg);

  std::string name() const override { return "rnn"; }
  int vocab_size() const override { return vocab_; }
  float label_smoothing() const override { return cfg_.label_smoothing; }
  int max_target_length() const override { return 1 << 20; }
  int max_source_length() const override { return 1 << 20; }  // no positions: any length
  const RnnConfig& config() const { return cfg_; }
  int context_dim() const { return 2 * cfg_.enc_dim; }

  void declare(ParameterArena& arena) override;
  Var encode(Graph& g, const ParameterArena& arena, const Tensor& src,
             const Tensor& src_lengths) const override;
  Var logits(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const override;

  std::unique_ptr<DecoderState> start(const ParameterArena& arena, const Tensor& src,
                                      const Tensor& src_lengths) const override;
  Tensor step(DecoderState& state, const std::vector<int32_t>& prev_tokens) const override;
  void reorder(DecoderState& state, const std::vector<int32_t>& rows) const override;

 private:
  struct Gru {
    Linear input;   // W [in, 3H], b_W: projects x (all time steps in one product)
    Linear hidden;  // U [H, 3H], b_U: projects the previous state
    int dim = 0;
  };
  // What attention reads: encoder states, their key projection and the source lengths.
  struct Memory {
    Var states;  // [B, S, C]
    Var keys;    // [B, S, A] = states U_a + b_a
    Tensor lengths;
  };
  struct StepOutput {
    Var state, context;  // [B, dec_dim], [B, C]
  };
  // The decoder's per-step products, made once before the steps (see step_linear).
  struct DecoderProducts {
    ops::StepProducts gru1_hidden, att_query, gru2_input, gru2_hidden;
  };
  DecoderProducts decoder_products(ParameterVars& p) const;
  struct State;

  // Source lengths twice: on the device (the masks are built there, so no upload waits for
  // the queued work mid-forward) and on the host (the time-step loop's bounds), read from the
  // copy the tensor kept at upload.
  struct Lengths {
    Tensor device;
    std::vector<int32_t> host;
  };
  static Lengths lengths_of(const Tensor& src_lengths, int S);

  Gru declare_gru(ParameterArena& arena, const std::string& name, int in, int dim);
  // Runs a GRU over x [B, S, in]; rows stop updating at their length. -> [B, S, dim]
  Var run_gru(ParameterVars& p, const Gru& gru, const Var& x, const Lengths& lengths,
              bool reverse) const;
  Var encoder(ParameterVars& p, const Tensor& src, const Lengths& lengths) const;
  // Rows of an embedding table for ids, times sqrt(emb_dim) when cfg_.scale_embeddings.
  Var embed(ParameterVars& p, int table, const Tensor& ids) const;
  Memory memory(ParameterVars& p, const Var& states, const Tensor& lengths) const;
  Var initial_state(ParameterVars& p, const Var& states, const Lengths& lengths) const;
  Var attend(ParameterVars& p, ops::StepProducts& query_projection, const Var& query,
             const Memory& m) const;
  // One cGRU step from the projected previous embedding xw1 [B, 3 dec_dim].
  StepOutput decoder_step(ParameterVars& p, DecoderProducts& dp, const Var& xw1, const Var& state,
                          const Memory& m) const;
  // [s; c; y] [..., dec + C + emb] -> logits [..., V]
  Var output_logits(ParameterVars& p, const Var& features) const;

  int vocab_;
  RnnConfig cfg_;
  int src_embedding_ = -1, tgt_embedding_ = -1, output_w_ = -1, output_b_ = -1;
  Gru enc_forward_, enc_backward_;
  std::vector<Gru> enc_extra_;
  Linear init_, att_query_, att_keys_, att_score_, deep_output_;
  Gru dec_gru1_, dec_gru2_;
};

}  // namespace sl
