#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "models/model_config.h"
#include "models/parameter_init.h"
#include "tensor/parameter_arena.h"

namespace sl {

constexpr int32_t kPadId = 0;  // padding in every id tensor; never a real token

// One training (or scoring) batch, on the model's device.
struct ModelBatch {
  Tensor src;          // int32 [B, S], padded with kPadId after each sentence
  Tensor src_lengths;  // int32 [B], each in [1, S]
  Tensor tgt_in;       // int32 [B, T]: BOS y_1 .. y_n, then padding
  Tensor tgt_out;      // int32 [B, T]: y_1 .. y_n EOS, then kPadId (ignored by the loss)
  int B = 0, S = 0, T = 0;
  int64_t target_tokens = 0;  // non-pad entries of tgt_out: what the summed loss is over
};

// From flat row-major host arrays (sizes B*S, B, B*T, B*T). Checks sizes and lengths.
ModelBatch make_model_batch(Device& dev, int B, int S, int T, const std::vector<int32_t>& src,
                            const std::vector<int32_t>& src_lengths,
                            const std::vector<int32_t>& tgt_in,
                            const std::vector<int32_t>& tgt_out);

// From sentences: sources as given (append EOS yourself if the data does), targets get BOS
// in front for tgt_in and EOS behind for tgt_out. S and T are the longest lengths, or at
// least min_S / min_T (extra padding).
ModelBatch make_model_batch(Device& dev, const std::vector<std::vector<int32_t>>& sources,
                            const std::vector<std::vector<int32_t>>& targets, int32_t bos_id,
                            int32_t eos_id, int min_S = 0, int min_T = 0);

// Padded source ids int32 [B, S] and lengths int32 [B] for decoding.
struct SourceBatch {
  Tensor src, src_lengths;
  int B = 0, S = 0;
};
SourceBatch make_source_batch(Device& dev, const std::vector<std::vector<int32_t>>& sources,
                              int min_S = 0);

// What a model keeps between decoding steps (encoder output, recurrent state or key/value
// caches), one row per live hypothesis.
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  virtual int rows() const = 0;
};

// An attentional encoder-decoder over a joint vocabulary. Usage:
//   model->declare(arena); arena.allocate(); model->initialize(arena, seed);
//   Graph g(dev, /*dropout=*/true, step_seed); Var l = model->loss(g, arena, batch);
//   g.backward(l);   // gradients land in arena.grads()
class Seq2SeqModel {
 public:
  virtual ~Seq2SeqModel() = default;
  virtual std::string name() const = 0;
  virtual int vocab_size() const = 0;
  virtual float label_smoothing() const = 0;
  // Longest target the decoder accepts (decoding clamps its length limit to it).
  virtual int max_target_length() const = 0;
  // Longest source, EOS included, the encoder accepts (longer ones throw).
  virtual int max_source_length() const = 0;

  // Declares every parameter in `arena` (once, before arena.allocate()).
  virtual void declare(ParameterArena& arena) = 0;
  // Deterministic: the same seed gives the same parameters on every node and device.
  void initialize(ParameterArena& arena, uint64_t seed) const;

  // Encoder states [B, S, C] (C = d_model, or 2 * enc_dim for the RNN). Positions >= length
  // hold values that nothing downstream reads.
  virtual Var encode(Graph& g, const ParameterArena& arena, const Tensor& src,
                     const Tensor& src_lengths) const = 0;
  // Teacher-forced output logits [B, T, V] for batch.tgt_in.
  virtual Var logits(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const = 0;
  // SUM over non-pad target tokens of the label-smoothed cross-entropy (a scalar); divide
  // by batch.target_tokens for the per-token mean.
  Var loss(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const;

  // Incremental decoding. Each call builds and frees its own graph (dropout off), so the
  // memory of a long decode stays bounded; no gradients are produced.
  // start: one state row per source sentence; the state points at `arena`, which must
  // outlive it.
  virtual std::unique_ptr<DecoderState> start(const ParameterArena& arena, const Tensor& src,
                                              const Tensor& src_lengths) const = 0;
  // Feeds the previous token of every row (BOS first) and returns log-probabilities of the
  // next token, float32 [rows, V] on the arena's device.
  virtual Tensor step(DecoderState& state, const std::vector<int32_t>& prev_tokens) const = 0;
  // Keeps rows `rows` of the state in that order (duplicates allowed; fewer rows drop
  // finished hypotheses).
  virtual void reorder(DecoderState& state, const std::vector<int32_t>& rows) const = 0;

 protected:
  InitializationPlan plan_;
};

std::unique_ptr<Seq2SeqModel> make_model(const ModelConfig& cfg);

}  // namespace sl
