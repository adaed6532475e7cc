// Embedding initialisation (issue 12): "glorot" stays inside sqrt(6 / (V + dim)); "normal"
// gives N(0, dim^-1/2), i.e. embedding vectors of norm ~1 whatever the vocabulary size.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model_test_util.h"

namespace sl {
namespace {

struct Moments {
  double max_abs = 0, stddev = 0;
};

Moments table_moments(const std::string& kind, EmbeddingInit init, const std::string& table) {
  ModelConfig cfg = testing::tiny_config(kind);
  cfg.vocab_size = 2000;
  cfg.rnn.emb_init = cfg.transformer.emb_init = init;
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
  for (const Case& c : {Case{"transformer", "embeddings/shared", 16},
                        Case{"rnn", "embeddings/source", 12}, Case{"rnn", "embeddings/target", 12}}) {
    const Moments g = table_moments(c.kind, EmbeddingInit::Glorot, c.table);
    EXPECT_LE(g.max_abs, std::sqrt(6.0 / (2000 + c.dim)) + 1e-6) << c.kind << " " << c.table;
    const Moments n = table_moments(c.kind, EmbeddingInit::Normal, c.table);
    EXPECT_NEAR(n.stddev, 1.0 / std::sqrt(c.dim), 0.03 / std::sqrt(c.dim)) << c.kind << " " << c.table;
  }
}

}  // namespace
}  // namespace sl
