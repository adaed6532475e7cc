// Embedding initialisation (issue 12): "glorot" stays inside sqrt(6 / (V + dim)); "normal"
// gives N(0, dim^-1/2), i.e. embedding vectors of norm ~1 whatever the vocabulary size;
// "unit" N(0, 1), PyTorch's nn.Embedding.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model_test_util.h"

namespace sl {
namespace {

struct Moments {
  double max_abs = 0, stddev = 0;
};

Moments table_moments(const std::string& kind, EmbeddingInit init, const std::string& table,
                      bool fused_qkv = false) {
  ModelConfig cfg = testing::tiny_config(kind);
  cfg.vocab_size = 2000;
  cfg.rnn.emb_init = cfg.transformer.emb_init = init;
  cfg.transformer.fused_qkv_init = fused_qkv;
  testing::ModelUnderTest m(cfg, 5);
  for (int i = 0; i < m.arena.count(); ++i) {
    if (m.arena.name(i) != table) continue;
    Moments r;
    double sum2 = 0;
    const std::vector<float> v = m.arena.value(i).to_host();
    for (float x : v) {
      r.max_abs = std::max(r.max_abs, static_cast<double>(std::fabs(x)));
      sum2 += static_cast<double>(x) * x;
    }
    r.stddev = std::sqrt(sum2 / static_cast<double>(v.size()));
    return r;
  }
  ADD_FAILURE() << "no parameter " << table;
  return {};
}

TEST(ParameterInit, EmbeddingTablesFollowEmbInit) {
  struct Case {
    std::string kind, table;
    int dim;
  };
  for (const Case& c :
       {Case{"transformer", "embeddings/shared", 16}, Case{"rnn", "embeddings/source", 12},
        Case{"rnn", "embeddings/target", 12}}) {
    const Moments g = table_moments(c.kind, EmbeddingInit::Glorot, c.table);
    EXPECT_LE(g.max_abs, std::sqrt(6.0 / (2000 + c.dim)) + 1e-6) << c.kind << " " << c.table;
    const Moments n = table_moments(c.kind, EmbeddingInit::Normal, c.table);
    EXPECT_NEAR(n.stddev, 1.0 / std::sqrt(c.dim), 0.03 / std::sqrt(c.dim))
        << c.kind << " " << c.table;
    const Moments u = table_moments(c.kind, EmbeddingInit::Unit, c.table);
    EXPECT_NEAR(u.stddev, 1.0, 0.03) << c.kind << " " << c.table;
  }
}

// qkv_init "fused": q, k, v uniform within sqrt(6 / (d + 3d)) (nn.MultiheadAttention's
// in_proj), 1/sqrt(2) of the separate Glorot limit sqrt(6 / 2d); the output projection keeps it.
TEST(ParameterInit, FusedQkvInitShrinksQkvOnly) {
  const int d = testing::tiny_config("transformer").transformer.d_model;
  const double separate = std::sqrt(6.0 / (2.0 * d)), fused = std::sqrt(6.0 / (4.0 * d));
  for (const char* w : {"q", "k", "v"}) {
    const std::string name = std::string("encoder/layer0/self_attention/") + w + "/w";
    const Moments a = table_moments("transformer", EmbeddingInit::Normal, name, false);
    const Moments b = table_moments("transformer", EmbeddingInit::Normal, name, true);
    EXPECT_GT(a.max_abs, 0.9 * separate) << name;
    EXPECT_LE(a.max_abs, separate + 1e-6) << name;
    EXPECT_GT(b.max_abs, 0.9 * fused) << name;
    EXPECT_LE(b.max_abs, fused + 1e-6) << name;
  }
  const std::string o = "encoder/layer0/self_attention/o/w";
  EXPECT_EQ(table_moments("transformer", EmbeddingInit::Normal, o, false).max_abs,
            table_moments("transformer", EmbeddingInit::Normal, o, true).max_abs);
}

}  // namespace
}  // namespace sl
