// Parameter counts against the analytic formulas of each architecture.
#include <gtest/gtest.h>

#include <cstdio>

#include "model_test_util.h"

namespace sl {
namespace {

int64_t tables(TiedEmbeddings t) {
  return t == TiedEmbeddings::All ? 1 : t == TiedEmbeddings::Output ? 2 : 3;
}

int64_t transformer_formula(int64_t V, const TransformerConfig& c) {
  const int64_t D = c.d_model, F = c.ff;
  const int64_t attention = 4 * (D * D + D), norm = 2 * D, ffn = D * F + F + F * D + D;
  const int64_t encoder_layer = attention + norm + ffn + norm;
  const int64_t decoder_layer = 2 * (attention + norm) + ffn + norm;
  return tables(c.tied_embeddings) * V * D + V + c.encoder_layers * encoder_layer +
         c.decoder_layers * decoder_layer + (c.pre_norm ? 2 * norm : 0);
}

int64_t gru(int64_t in, int64_t h) { return in * 3 * h + 3 * h + h * 3 * h + 3 * h; }

int64_t rnn_formula(int64_t V, const RnnConfig& c) {
  const int64_t E = c.emb_dim, H = c.enc_dim, C = 2 * H, D = c.dec_dim;
  const int64_t encoder = 2 * gru(E, H) + (c.enc_layers - 1) * gru(C, C);
  const int64_t attention = D * D + (C * D + D) + D;
  const int64_t decoder = (C * D + D) + gru(E, D) + attention + gru(C, D) + (D + C + E) * E + E;
  return tables(c.tied_embeddings) * V * E + V + encoder + decoder;
}

int64_t declared(const ModelConfig& cfg) {
  auto model = make_model(cfg);
  ParameterArena arena(cpu_device());
  model->declare(arena);
  int64_t n = 0;  // arena.size() also counts the alignment gaps between parameters
  for (int i = 0; i < arena.count(); ++i) n += arena.shape(i).numel();
  return n;
}

TEST(ParameterCount, TransformerMatchesFormula) {
  for (bool pre : {false, true})
    for (TiedEmbeddings t : {TiedEmbeddings::All, TiedEmbeddings::Output, TiedEmbeddings::None}) {
      ModelConfig c = testing::tiny_config("transformer");
      c.transformer.pre_norm = pre;
      c.transformer.tied_embeddings = t;
      c.transformer.encoder_layers = 3;
      EXPECT_EQ(declared(c), transformer_formula(c.vocab_size, c.transformer))
          << "pre_norm " << pre << " tied " << to_string(t);
    }
}

TEST(ParameterCount, RnnMatchesFormula) {
  for (int layers : {1, 3})
    for (TiedEmbeddings t : {TiedEmbeddings::All, TiedEmbeddings::Output, TiedEmbeddings::None}) {
      ModelConfig c = testing::tiny_config("rnn");
      c.rnn.enc_layers = layers;
      c.rnn.tied_embeddings = t;
      EXPECT_EQ(declared(c), rnn_formula(c.vocab_size, c.rnn))
          << "layers " << layers << " tied " << to_string(t);
    }
}

TEST(ParameterCount, DefaultConfigsAtVocab8000) {
  ModelConfig t;
  t.vocab_size = 8000;
  ModelConfig r = t;
  r.type = ModelType::Rnn;
  EXPECT_EQ(declared(t), transformer_formula(8000, t.transformer));
  EXPECT_EQ(declared(r), rnn_formula(8000, r.rnn));
  std::printf(
      "default transformer (V=8000): %lld parameters\ndefault rnn (V=8000): %lld parameters\n",
      static_cast<long long>(declared(t)), static_cast<long long>(declared(r)));
}

TEST(ParameterCount, NamesAreUniqueAndHierarchical) {
  testing::ModelUnderTest m(testing::tiny_config("transformer"), 1);
  EXPECT_GE(m.arena.index_of("embeddings/shared"), 0);
  EXPECT_GE(m.arena.index_of("encoder/layer0/self_attention/q/w"), 0);
  EXPECT_GE(m.arena.index_of("decoder/layer1/cross_attention/o/b"), 0);
  EXPECT_EQ(m.arena.index_of("embeddings/source"), -1);
}

}  // namespace
}  // namespace sl
