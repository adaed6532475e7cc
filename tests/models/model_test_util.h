#pragma once
// Tiny models, a copy-task batch and a host Adam loop shared by the model and decoding tests.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "common/counter_rng.h"
#include "models/seq2seq_model.h"

namespace sl::testing {

constexpr int kTinyVocab = 16;
constexpr int32_t kBos = 2, kEos = 3, kFirstWord = 4;

// "transformer" (post-norm), "transformer_pre", "rnn" (tanh deep output), "rnn_linear"
// (linear deep output), "rnn_scaled" (linear deep output, embedding lookups times
// sqrt(emb_dim): configs/small/rnn.json's form): small enough for a 2-core CI box.
inline ModelConfig tiny_config(const std::string& kind) {
  ModelConfig c;
  c.vocab_size = kTinyVocab;
  if (kind == "rnn" || kind == "rnn_linear" || kind == "rnn_scaled") {
    c.type = ModelType::Rnn;
    c.rnn.linear_output = kind != "rnn";
    c.rnn.scale_embeddings = kind == "rnn_scaled";
    c.rnn.emb_dim = 12;
    c.rnn.enc_dim = 8;
    c.rnn.dec_dim = 16;
    c.rnn.enc_layers = 2;
    c.rnn.dropout = 0.0f;
    c.rnn.label_smoothing = 0.0f;
  } else {
    c.type = ModelType::Transformer;
    c.transformer.d_model = 16;
    c.transformer.heads = 2;
    c.transformer.ff = 32;
    c.transformer.encoder_layers = 2;
    c.transformer.decoder_layers = 2;
    c.transformer.dropout = 0.0f;
    c.transformer.label_smoothing = 0.0f;
    c.transformer.pre_norm = kind == "transformer_pre";
    c.transformer.max_length = 64;
  }
  return c;
}

inline const std::vector<std::string>& model_kinds() {
  static const std::vector<std::string> k{"transformer", "transformer_pre", "rnn", "rnn_linear",
                                          "rnn_scaled"};
  return k;
}

// A model with its own arena, declared, allocated and initialised.
struct ModelUnderTest {
  ModelConfig cfg;
  std::unique_ptr<Seq2SeqModel> model;
  ParameterArena arena;
  ModelUnderTest(const ModelConfig& c, uint64_t seed)
      : cfg(c), model(make_model(c)), arena(cpu_device()) {
    model->declare(arena);
    arena.allocate();
    model->initialize(arena, seed);
  }
};

// Random word sentences (ids kFirstWord..V-1) of lengths min_len..max_len.
inline std::vector<std::vector<int32_t>> random_sentences(int n, int min_len, int max_len,
                                                          uint64_t stream) {
  CounterRng rng(77, stream);
  std::vector<std::vector<int32_t>> out;
  for (int i = 0; i < n; ++i) {
    const int len = min_len + static_cast<int>(rng.next_u64() % (max_len - min_len + 1));
    std::vector<int32_t> s;
    for (int t = 0; t < len; ++t)
      s.push_back(kFirstWord + static_cast<int32_t>(rng.next_u64() % (kTinyVocab - kFirstWord)));
    out.push_back(s);
  }
  return out;
}

// Copy task: the target is the source.
inline ModelBatch copy_batch(const std::vector<std::vector<int32_t>>& sentences, int min_S = 0,
                             int min_T = 0) {
  return make_model_batch(cpu_device(), sentences, sentences, kBos, kEos, min_S, min_T);
}

// Summed loss and, when `grads` is given, the gradient (arena grads are zeroed first).
inline float loss_of(ModelUnderTest& m, const ModelBatch& b, std::vector<float>* grads = nullptr,
                     bool dropout = false, uint64_t graph_seed = 1) {
  m.arena.zero_grads();
  Graph g(cpu_device(), dropout, graph_seed);
  Var loss = m.model->loss(g, m.arena, b);
  if (grads) {
    g.backward(loss);
    *grads = m.arena.grads().to_host();
  }
  return loss.value().to_host()[0];
}

// Adam on the per-token mean loss, on the host (the optimizer library is a layer above).
inline std::vector<float> train_adam(ModelUnderTest& m, const ModelBatch& b, int steps,
                                     float lr = 0.01f) {
  const size_t P = m.arena.size();
  std::vector<float> mom(P, 0.0f), var(P, 0.0f), losses;
  const float b1 = 0.9f, b2 = 0.98f, eps = 1e-9f;
  for (int t = 1; t <= steps; ++t) {
    std::vector<float> g;
    losses.push_back(loss_of(m, b, &g) / static_cast<float>(b.target_tokens));
    std::vector<float> p = m.arena.values().to_host();
    const float c1 = 1.0f - std::pow(b1, static_cast<float>(t));
    const float c2 = 1.0f - std::pow(b2, static_cast<float>(t));
    for (size_t i = 0; i < P; ++i) {
      const float gi = g[i] / static_cast<float>(b.target_tokens);
      mom[i] = b1 * mom[i] + (1 - b1) * gi;
      var[i] = b2 * var[i] + (1 - b2) * gi * gi;
      p[i] -= lr * (mom[i] / c1) / (std::sqrt(var[i] / c2) + eps);
    }
    Tensor values = m.arena.values();  // shares the arena's memory
    values.copy_from(Tensor::from_host(cpu_device(), Shape{static_cast<int64_t>(P)}, p));
  }
  return losses;
}

}  // namespace sl::testing
