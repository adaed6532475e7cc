#include "models/model_config.h"

#include <string>

#include "common/input_error.h"

namespace sl {

namespace {

constexpr long long kMaxDim = 1 << 20;

int dim(ConfigObject& c, const std::string& key, int def, long long min = 1) {
  return static_cast<int>(c.integer(key, def, min, kMaxDim));
}

// A probability in [0, 1): 1 would drop (or smooth away) everything.
float probability(ConfigObject& c, const std::string& key, float def) {
  return static_cast<float>(c.number_below(key, def, 0.0, 1.0));
}

// true/false (all/none) or one of the names, so both Marian's boolean habit and the
// explicit form read naturally.
TiedEmbeddings tied_embeddings(ConfigObject& c, TiedEmbeddings def) {
  const std::string key = "tied_embeddings";
  if (!c.has(key)) {
    c.choice(key, to_string(def),
             {"all", "output", "none"});  // absent: marks it read, records the default
    return def;
  }
  const nlohmann::json& v = c.raw(key);
  if (v.is_boolean()) return v.get<bool>() ? TiedEmbeddings::All : TiedEmbeddings::None;
  const std::string s = c.choice(key, "", {"all", "output", "none"});
  if (s == "all") return TiedEmbeddings::All;
  if (s == "output") return TiedEmbeddings::Output;
  return TiedEmbeddings::None;
}

EmbeddingInit emb_init(ConfigObject& c, EmbeddingInit def) {
  const std::string s = c.choice("emb_init", to_string(def), {"glorot", "normal", "unit"});
  if (s == "normal") return EmbeddingInit::Normal;
  if (s == "unit") return EmbeddingInit::Unit;
  return EmbeddingInit::Glorot;
}

TransformerConfig parse_transformer(ConfigObject& c) {
  TransformerConfig t;
  t.d_model = dim(c, "d_model", t.d_model, 2);
  t.heads = dim(c, "heads", t.heads);
  if (t.d_model % t.heads != 0)
    throw InputError(c.where("heads"), "expected a divisor of d_model (" +
                                           std::to_string(t.d_model) + "), got " +
                                           std::to_string(t.heads));
  t.ff = dim(c, "ff", t.ff);
  t.encoder_layers = dim(c, "encoder_layers", t.encoder_layers);
  t.decoder_layers = dim(c, "decoder_layers", t.decoder_layers);
  t.dropout = probability(c, "dropout", t.dropout);
  t.attention_dropout = probability(c, "attention_dropout", t.attention_dropout);
  t.relu_dropout = probability(c, "relu_dropout", t.relu_dropout);
  t.label_smoothing = probability(c, "label_smoothing", t.label_smoothing);
  t.tied_embeddings = tied_embeddings(c, t.tied_embeddings);
  t.pre_norm = c.choice("norm", t.pre_norm ? "pre" : "post", {"post", "pre"}) == "pre";
  t.max_length = dim(c, "max_length", t.max_length);
  t.emb_init = emb_init(c, t.emb_init);
  t.fused_qkv_init = c.choice("qkv_init", t.fused_qkv_init ? "fused" : "separate",
                              {"separate", "fused"}) == "fused";
  return t;
}

RnnConfig parse_rnn(ConfigObject& c) {
  RnnConfig r;
  r.emb_dim = dim(c, "emb_dim", r.emb_dim);
  r.enc_dim = dim(c, "enc_dim", r.enc_dim);
  r.dec_dim = dim(c, "dec_dim", r.dec_dim);
  r.enc_layers = dim(c, "enc_layers", r.enc_layers);
  r.dropout = probability(c, "dropout", r.dropout);
  r.label_smoothing = probability(c, "label_smoothing", r.label_smoothing);
  r.tied_embeddings = tied_embeddings(c, r.tied_embeddings);
  r.emb_init = emb_init(c, r.emb_init);
  r.linear_output =
      c.choice("deep_output", r.linear_output ? "linear" : "tanh", {"tanh", "linear"}) == "linear";
  r.scale_embeddings = c.choice("emb_scale", r.scale_embeddings ? "sqrt_dim" : "none",
                                {"none", "sqrt_dim"}) == "sqrt_dim";
  return r;
}

}  // namespace

bool TransformerConfig::operator==(const TransformerConfig& o) const {
  return d_model == o.d_model && heads == o.heads && ff == o.ff &&
         encoder_layers == o.encoder_layers && decoder_layers == o.decoder_layers &&
         dropout == o.dropout && attention_dropout == o.attention_dropout &&
         relu_dropout == o.relu_dropout && label_smoothing == o.label_smoothing &&
         tied_embeddings == o.tied_embeddings && pre_norm == o.pre_norm &&
         max_length == o.max_length && emb_init == o.emb_init && fused_qkv_init == o.fused_qkv_init;
}

bool RnnConfig::operator==(const RnnConfig& o) const {
  return emb_dim == o.emb_dim && enc_dim == o.enc_dim && dec_dim == o.dec_dim &&
         enc_layers == o.enc_layers && dropout == o.dropout &&
         label_smoothing == o.label_smoothing && tied_embeddings == o.tied_embeddings &&
         emb_init == o.emb_init && linear_output == o.linear_output &&
         scale_embeddings == o.scale_embeddings;
}

bool ModelConfig::operator==(const ModelConfig& o) const {
  if (type != o.type || vocab_size != o.vocab_size) return false;
  return type == ModelType::Transformer ? transformer == o.transformer : rnn == o.rnn;
}

const char* to_string(ModelType t) { return t == ModelType::Transformer ? "transformer" : "rnn"; }

const char* to_string(EmbeddingInit e) {
  switch (e) {
    case EmbeddingInit::Normal: return "normal";
    case EmbeddingInit::Unit: return "unit";
    case EmbeddingInit::Glorot: break;
  }
  return "glorot";
}

ParamInit param_init(EmbeddingInit e) {
  switch (e) {
    case EmbeddingInit::Normal: return ParamInit::EmbeddingNormal;
    case EmbeddingInit::Unit: return ParamInit::UnitNormal;
    case EmbeddingInit::Glorot: break;
  }
  return ParamInit::GlorotUniform;
}

const char* to_string(TiedEmbeddings t) {
  switch (t) {
    case TiedEmbeddings::All:
      return "all";
    case TiedEmbeddings::Output:
      return "output";
    case TiedEmbeddings::None:
      return "none";
  }
  return "?";
}

ModelConfig parse_model_config(ConfigObject& c) {
  ModelConfig m;
  m.type = c.choice("type", "transformer", {"transformer", "rnn"}) == "rnn"
               ? ModelType::Rnn
               : ModelType::Transformer;
  if (!c.has("vocab_size"))
    throw InputError(c.where("vocab_size"),
                     "expected an integer >= 8 (the joint SentencePiece vocabulary size), got "
                     "nothing");
  m.vocab_size = static_cast<int>(c.integer("vocab_size", 0, 8, 1LL << 30));
  if (m.type == ModelType::Transformer)
    m.transformer = parse_transformer(c);
  else
    m.rnn = parse_rnn(c);
  c.finish();
  return m;
}

nlohmann::json to_json(const ModelConfig& cfg) {
  nlohmann::json j;
  j["type"] = to_string(cfg.type);
  j["vocab_size"] = cfg.vocab_size;
  if (cfg.type == ModelType::Transformer) {
    const TransformerConfig& t = cfg.transformer;
    j["d_model"] = t.d_model;
    j["heads"] = t.heads;
    j["ff"] = t.ff;
    j["encoder_layers"] = t.encoder_layers;
    j["decoder_layers"] = t.decoder_layers;
    j["dropout"] = json_float(t.dropout);
    j["attention_dropout"] = json_float(t.attention_dropout);
    j["relu_dropout"] = json_float(t.relu_dropout);
    j["label_smoothing"] = json_float(t.label_smoothing);
    j["tied_embeddings"] = to_string(t.tied_embeddings);
    j["norm"] = t.pre_norm ? "pre" : "post";
    j["max_length"] = t.max_length;
    j["emb_init"] = to_string(t.emb_init);
    // Only when not the default, so configs and checkpoints written before it was added match.
    if (t.fused_qkv_init) j["qkv_init"] = "fused";
  } else {
    const RnnConfig& r = cfg.rnn;
    j["emb_dim"] = r.emb_dim;
    j["enc_dim"] = r.enc_dim;
    j["dec_dim"] = r.dec_dim;
    j["enc_layers"] = r.enc_layers;
    j["dropout"] = json_float(r.dropout);
    j["label_smoothing"] = json_float(r.label_smoothing);
    j["tied_embeddings"] = to_string(r.tied_embeddings);
    j["emb_init"] = to_string(r.emb_init);
    j["deep_output"] = r.linear_output ? "linear" : "tanh";
    // Only when not the default, as qkv_init above.
    if (r.scale_embeddings) j["emb_scale"] = "sqrt_dim";
  }
  return j;
}

}  // namespace sl
