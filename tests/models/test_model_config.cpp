#include <gtest/gtest.h>

#include <string>

#include "common/input_error.h"
#include "models/model_config.h"

namespace sl {
namespace {

ModelConfig parse(const nlohmann::json& j) {
  ConfigObject c(j, "test.json", "/model");
  return parse_model_config(c);
}

// The InputError's "where" for a config that must be rejected.
std::string rejected_at(const nlohmann::json& j) {
  try {
    parse(j);
  } catch (const InputError& e) {
    return e.where();
  }
  return "accepted";
}

TEST(ModelConfig, TransformerDefaultsAreSmall) {
  ModelConfig m = parse({{"vocab_size", 8000}});
  EXPECT_EQ(m.type, ModelType::Transformer);
  EXPECT_EQ(m.vocab_size, 8000);
  EXPECT_EQ(m.transformer.d_model, 256);
  EXPECT_EQ(m.transformer.heads, 4);
  EXPECT_EQ(m.transformer.ff, 1024);
  EXPECT_EQ(m.transformer.encoder_layers, 3);
  EXPECT_EQ(m.transformer.decoder_layers, 3);
  EXPECT_EQ(m.transformer.tied_embeddings, TiedEmbeddings::All);
  EXPECT_FALSE(m.transformer.pre_norm);
  EXPECT_FLOAT_EQ(m.transformer.label_smoothing, 0.1f);
}

TEST(ModelConfig, ReadsEveryTransformerField) {
  ModelConfig m = parse({{"type", "transformer"},
                         {"vocab_size", 100},
                         {"d_model", 64},
                         {"heads", 8},
                         {"ff", 128},
                         {"encoder_layers", 2},
                         {"decoder_layers", 1},
                         {"dropout", 0.2},
                         {"attention_dropout", 0.05},
                         {"relu_dropout", 0.1},
                         {"label_smoothing", 0.0},
                         {"tied_embeddings", "output"},
                         {"norm", "pre"},
                         {"max_length", 100}});
  const TransformerConfig& t = m.transformer;
  EXPECT_EQ(t.d_model, 64);
  EXPECT_EQ(t.heads, 8);
  EXPECT_EQ(t.ff, 128);
  EXPECT_EQ(t.encoder_layers, 2);
  EXPECT_EQ(t.decoder_layers, 1);
  EXPECT_FLOAT_EQ(t.dropout, 0.2f);
  EXPECT_FLOAT_EQ(t.attention_dropout, 0.05f);
  EXPECT_FLOAT_EQ(t.relu_dropout, 0.1f);
  EXPECT_EQ(t.tied_embeddings, TiedEmbeddings::Output);
  EXPECT_TRUE(t.pre_norm);
  EXPECT_EQ(t.max_length, 100);
}

TEST(ModelConfig, ReadsRnnFields) {
  ModelConfig m = parse({{"type", "rnn"},
                         {"vocab_size", 100},
                         {"emb_dim", 32},
                         {"enc_dim", 24},
                         {"dec_dim", 40},
                         {"enc_layers", 3},
                         {"dropout", 0.3},
                         {"label_smoothing", 0.1},
                         {"tied_embeddings", false}});
  EXPECT_EQ(m.type, ModelType::Rnn);
  EXPECT_EQ(m.rnn.emb_dim, 32);
  EXPECT_EQ(m.rnn.enc_dim, 24);
  EXPECT_EQ(m.rnn.dec_dim, 40);
  EXPECT_EQ(m.rnn.enc_layers, 3);
  EXPECT_FLOAT_EQ(m.rnn.dropout, 0.3f);
  EXPECT_EQ(m.rnn.tied_embeddings, TiedEmbeddings::None);
  EXPECT_EQ(parse({{"type", "rnn"}, {"vocab_size", 100}}).rnn.tied_embeddings,
            TiedEmbeddings::Output);
  EXPECT_EQ(parse({{"vocab_size", 100}, {"tied_embeddings", true}}).transformer.tied_embeddings,
            TiedEmbeddings::All);
}

TEST(ModelConfig, RoundTripsThroughJson) {
  for (const nlohmann::json& j :
       {nlohmann::json{{"vocab_size", 50}, {"norm", "pre"}, {"dropout", 0.3}},
        nlohmann::json{{"vocab_size", 50}, {"emb_init", "glorot"}},
        nlohmann::json{{"type", "rnn"}, {"vocab_size", 50}, {"emb_init", "glorot"}},
        nlohmann::json{{"type", "rnn"}, {"vocab_size", 50}, {"enc_layers", 2}},
        nlohmann::json{{"type", "rnn"}, {"vocab_size", 50}, {"deep_output", "linear"}},
        nlohmann::json{{"type", "rnn"}, {"vocab_size", 50}, {"emb_scale", "sqrt_dim"}},
        nlohmann::json{{"vocab_size", 50}, {"qkv_init", "fused"}}}) {
    ModelConfig a = parse(j);
    EXPECT_EQ(parse(to_json(a)), a) << to_json(a).dump();
  }
}

TEST(ModelConfig, RnnEmbeddingScaleIsWrittenOnlyWhenOn) {
  // Configs and checkpoints written before the key existed must still compare equal.
  EXPECT_FALSE(to_json(parse({{"type", "rnn"}, {"vocab_size", 50}})).contains("emb_scale"));
  const ModelConfig on = parse({{"type", "rnn"}, {"vocab_size", 50}, {"emb_scale", "sqrt_dim"}});
  EXPECT_TRUE(on.rnn.scale_embeddings);
  EXPECT_EQ(to_json(on).at("emb_scale"), "sqrt_dim");
}

TEST(ModelConfig, RejectsBadValuesWithTheirPointer) {
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"d_model", 30}, {"heads", 4}}),
            "test.json:/model/heads");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"dropout", 1.0}}), "test.json:/model/dropout");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"attention_dropout", -0.1}}),
            "test.json:/model/attention_dropout");
  EXPECT_EQ(rejected_at({{"vocab_size", 4}}), "test.json:/model/vocab_size");
  EXPECT_EQ(rejected_at({{"d_model", 64}}), "test.json:/model/vocab_size");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"type", "lstm"}}), "test.json:/model/type");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"norm", "middle"}}), "test.json:/model/norm");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"emb_init", "zeros"}}), "test.json:/model/emb_init");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"qkv_init", "joint"}}), "test.json:/model/qkv_init");
  EXPECT_EQ(rejected_at({{"type", "rnn"}, {"vocab_size", 64}, {"deep_output", "relu"}}),
            "test.json:/model/deep_output");
  EXPECT_EQ(rejected_at({{"type", "rnn"}, {"vocab_size", 64}, {"emb_scale", "sqrt"}}),
            "test.json:/model/emb_scale");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"emb_scale", "sqrt_dim"}}),
            "test.json:/model/emb_scale");  // a Transformer always scales; not its key
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"encoder_layers", 0}}),
            "test.json:/model/encoder_layers");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"tied_embeddings", "some"}}),
            "test.json:/model/tied_embeddings");
  EXPECT_EQ(rejected_at({{"type", "rnn"}, {"vocab_size", 64}, {"label_smoothing", 1.5}}),
            "test.json:/model/label_smoothing");
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"heads", "four"}}), "test.json:/model/heads");
}

TEST(ModelConfig, RejectsKeysOfTheOtherModelType) {
  EXPECT_EQ(rejected_at({{"vocab_size", 64}, {"emb_dim", 32}}), "test.json:/model/emb_dim");
  EXPECT_EQ(rejected_at({{"type", "rnn"}, {"vocab_size", 64}, {"heads", 4}}),
            "test.json:/model/heads");
}

}  // namespace
}  // namespace sl
