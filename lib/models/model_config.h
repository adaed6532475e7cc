#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "common/config_object.h"
#include "models/parameter_init.h"

namespace sl {

enum class ModelType { Transformer, Rnn };

// Which embedding matrices are one matrix (vocabularies are joint, so all may be shared).
//   All:    source embedding = target embedding = output layer (Marian tied-embeddings-all)
//   Output: target embedding = output layer; the source embedding is separate
//   None:   three matrices
enum class TiedEmbeddings { All, Output, None };

// How embedding tables (and a tied output layer) start: "glorot" uniform, whose limit
// sqrt(6 / (V + dim)) shrinks with the vocabulary, "normal" N(0, dim^-1/2) (rows of norm ~1),
// or "unit" N(0, 1) as PyTorch's nn.Embedding (rows of norm ~sqrt(dim)).
enum class EmbeddingInit { Glorot, Normal, Unit };

struct TransformerConfig {
  int d_model = 256;
  int heads = 4;
  int ff = 1024;
  int encoder_layers = 3;
  int decoder_layers = 3;
  float dropout = 0.1f;            // residual (sub-layer output) and embedding dropout
  float attention_dropout = 0.0f;  // on attention weights
  float relu_dropout = 0.0f;       // inside the feed-forward block
  float label_smoothing = 0.1f;
  TiedEmbeddings tied_embeddings = TiedEmbeddings::All;
  bool pre_norm = false;  // "post" (Marian's default) or "pre" (adds a final layer norm)
  int max_length = 512;   // longest source or target sequence accepted
  // Normal: token vectors scaled by sqrt(d_model) then have norm ~sqrt(d_model), comparable to
  // the sinusoidal positions; Glorot on a large vocabulary gave them a quarter of that and
  // cost ~300 steps at the start of training (issue 12, results/single-node/LEARNING.md).
  EmbeddingInit emb_init = EmbeddingInit::Normal;
  // q, k, v initialised as one fused [D, 3D] Glorot matrix (PyTorch's nn.MultiheadAttention,
  // so nn.Transformer) instead of three [D, D] ones: weights 1/sqrt(2) smaller (issue 12).
  bool fused_qkv_init = false;
  bool operator==(const TransformerConfig& o) const;
};

struct RnnConfig {
  int emb_dim = 256;
  int enc_dim = 256;  // per direction; encoder states are 2 * enc_dim wide
  int dec_dim = 512;
  int enc_layers = 1;    // first layer bidirectional, the others forward with residuals
  float dropout = 0.1f;  // on embeddings and on the deep output
  float label_smoothing = 0.0f;
  TiedEmbeddings tied_embeddings = TiedEmbeddings::Output;
  // Normal: embedding rows of norm ~1, so the tied output (tanh features, |t| <= 1 per unit,
  // times E^T) can produce logits of useful size from the start (issue 12).
  EmbeddingInit emb_init = EmbeddingInit::Normal;
  // The deep output o = W [s; c; y] + b before the tied projection: tanh-bounded as in
  // Nematus (|o_i| <= 1, so logits start small), or linear as in Bahdanau et al.'s textbook
  // form, whose logits can grow as fast as the embeddings allow (issue 12).
  bool linear_output = false;
  // Embedding lookups (source and target input, not the tied output) multiplied by
  // sqrt(emb_dim), as the Transformer does: with rows of norm ~1 (emb_init normal) each input
  // unit is ~dim^-1/2, too small for a GRU without layer normalisation to see at the start,
  // and the attention learns to align late (issue 12). Off by default so that older configs
  // and checkpoints mean what they meant; configs/small/rnn.json turns it on.
  bool scale_embeddings = false;
  bool operator==(const RnnConfig& o) const;
};

struct ModelConfig {
  ModelType type = ModelType::Transformer;
  int vocab_size = 0;             // joint source/target vocabulary, id 0 is padding
  TransformerConfig transformer;  // used when type == Transformer
  RnnConfig rnn;                  // used when type == Rnn
  bool operator==(const ModelConfig& o) const;
};

// Parses the "model" object: {"type": "transformer"|"rnn", "vocab_size": N, ...the fields of
// the chosen type...}. Keys of the other type are rejected as unknown. Calls c.finish().
// Throws InputError naming the JSON pointer for missing, mistyped or out-of-range values.
ModelConfig parse_model_config(ConfigObject& c);

// Every field, defaults included (for result files); parse_model_config(to_json(x)) == x.
nlohmann::json to_json(const ModelConfig& cfg);

const char* to_string(ModelType t);
const char* to_string(TiedEmbeddings t);
const char* to_string(EmbeddingInit e);
// The ParamInit of an embedding table.
ParamInit param_init(EmbeddingInit e);

}  // namespace sl
