// Finite-difference check of the whole model's gradient: for every parameter tensor, the
// coordinate with the largest analytic gradient and one chosen at random.
#include <gtest/gtest.h>

#include <cmath>

#include "model_test_util.h"

namespace sl {
namespace {

using testing::ModelUnderTest;

class ModelGradients : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelGradients, MatchFiniteDifferences) {
  ModelConfig cfg = testing::tiny_config(GetParam());
  // Dropout on: the masks depend only on the graph seed, so the function is fixed and its
  // backward is checked too.
  cfg.transformer.dropout = cfg.rnn.dropout = 0.1f;
  cfg.transformer.attention_dropout = 0.1f;
  cfg.transformer.label_smoothing = cfg.rnn.label_smoothing = 0.1f;
  cfg.transformer.tied_embeddings = TiedEmbeddings::Output;
  ModelUnderTest m(cfg, 21);
  ModelBatch batch = testing::copy_batch(testing::random_sentences(2, 2, 4, 9));
  const uint64_t graph_seed = 5;
  std::vector<float> analytic;
  testing::loss_of(m, batch, &analytic, true, graph_seed);
  std::vector<float> values = m.arena.values().to_host();

  auto loss_at = [&](size_t i, float x) {
    std::vector<float> v = values;
    v[i] = x;
    Tensor arena_values = m.arena.values();  // shares the arena's memory
    arena_values.copy_from(Tensor::from_host(cpu_device(), arena_values.shape(), v));
    return static_cast<double>(testing::loss_of(m, batch, nullptr, true, graph_seed));
  };
  auto matches = [](double analytic_i, double numeric) {
    return std::fabs(analytic_i - numeric) <= 3e-3 + 3e-2 * std::fabs(numeric);
  };
  CounterRng rng(3, 4);
  int checked = 0;
  for (int p = 0; p < m.arena.count(); ++p) {
    const size_t off = static_cast<size_t>(m.arena.offset(p));
    const size_t n = static_cast<size_t>(m.arena.shape(p).numel());
    size_t largest = off;
    for (size_t i = off; i < off + n; ++i)
      if (std::fabs(analytic[i]) > std::fabs(analytic[largest])) largest = i;
    for (size_t i : {largest, off + static_cast<size_t>(rng.next_u64() % n)}) {
      // A ReLU kink within the step spoils the difference quotients that straddle it; a
      // wrong backward spoils all of them. So the coordinate passes when the central
      // quotient at 3e-3 or 1e-3, or a one-sided one at 1e-3 (the kink-free side), agrees.
      const double f0 = loss_at(i, values[i]);
      const double up3 = loss_at(i, values[i] + 3e-3f), down3 = loss_at(i, values[i] - 3e-3f);
      const double up1 = loss_at(i, values[i] + 1e-3f), down1 = loss_at(i, values[i] - 1e-3f);
      const double quotients[4] = {(up3 - down3) / 6e-3, (up1 - down1) / 2e-3, (up1 - f0) / 1e-3,
                                   (f0 - down1) / 1e-3};
      bool ok = false;
      for (double q : quotients) ok = ok || matches(analytic[i], q);
      EXPECT_TRUE(ok) << m.arena.name(p) << " element " << i - off << ": analytic " << analytic[i]
                      << ", central " << quotients[0] << " / " << quotients[1] << ", forward "
                      << quotients[2] << ", backward " << quotients[3];
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * m.arena.count());
}

INSTANTIATE_TEST_SUITE_P(Models, ModelGradients, ::testing::ValuesIn(testing::model_kinds()));

}  // namespace
}  // namespace sl
