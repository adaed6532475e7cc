#include "models/seq2seq_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"
#include "models/rnn_model.h"
#include "models/transformer_model.h"

namespace sl {

namespace {

void check_size(const char* what, size_t got, int64_t expected) {
  if (static_cast<int64_t>(got) != expected)
    throw std::invalid_argument(std::string("make_model_batch: ") + what + " has " +
                                std::to_string(got) + " entries, expected " +
                                std::to_string(expected));
}

int longest(const std::vector<std::vector<int32_t>>& v, int extra) {
  size_t n = 0;
  for (const auto& s : v) n = std::max(n, s.size());
  return static_cast<int>(n) + extra;
}

}  // namespace

ModelBatch make_model_batch(Device& dev, int B, int S, int T, const std::vector<int32_t>& src,
                            const std::vector<int32_t>& src_lengths,
                            const std::vector<int32_t>& tgt_in,
                            const std::vector<int32_t>& tgt_out) {
  if (B < 1 || S < 1 || T < 1)
    throw std::invalid_argument("make_model_batch: empty batch [" + std::to_string(B) + ", " +
                                std::to_string(S) + ", " + std::to_string(T) + "]");
  check_size("src", src.size(), static_cast<int64_t>(B) * S);
  check_size("src_lengths", src_lengths.size(), B);
  check_size("tgt_in", tgt_in.size(), static_cast<int64_t>(B) * T);
  check_size("tgt_out", tgt_out.size(), static_cast<int64_t>(B) * T);
  for (int b = 0; b < B; ++b)
    if (src_lengths[b] < 1 || src_lengths[b] > S)
      throw std::invalid_argument("make_model_batch: source " + std::to_string(b) + " has length " +
                                  std::to_string(src_lengths[b]) + ", expected 1.." +
                                  std::to_string(S));
  ModelBatch m;
  m.B = B;
  m.S = S;
  m.T = T;
  m.src = Tensor::from_host_ids(dev, Shape{B, S}, src);
  m.src_lengths = Tensor::from_host_ids(dev, Shape{B}, src_lengths);
  m.tgt_in = Tensor::from_host_ids(dev, Shape{B, T}, tgt_in);
  m.tgt_out = Tensor::from_host_ids(dev, Shape{B, T}, tgt_out);
  m.target_tokens =
      std::count_if(tgt_out.begin(), tgt_out.end(), [](int32_t t) { return t != kPadId; });
  return m;
}

ModelBatch make_model_batch(Device& dev, const std::vector<std::vector<int32_t>>& sources,
                            const std::vector<std::vector<int32_t>>& targets, int32_t bos_id,
                            int32_t eos_id, int min_S, int min_T) {
  if (sources.size() != targets.size())
    throw std::invalid_argument("make_model_batch: " + std::to_string(sources.size()) +
                                " sources but " + std::to_string(targets.size()) + " targets");
  const int B = static_cast<int>(sources.size());
  const int S = std::max(longest(sources, 0), min_S), T = std::max(longest(targets, 1), min_T);
  std::vector<int32_t> src(static_cast<size_t>(B) * S, kPadId), lengths(static_cast<size_t>(B));
  std::vector<int32_t> tin(static_cast<size_t>(B) * T, kPadId), tout(tin);
  for (int b = 0; b < B; ++b) {
    std::copy(sources[b].begin(), sources[b].end(), src.begin() + static_cast<size_t>(b) * S);
    lengths[b] = static_cast<int32_t>(sources[b].size());
    const size_t row = static_cast<size_t>(b) * T, n = targets[b].size();
    tin[row] = bos_id;
    for (size_t i = 0; i < n; ++i) {
      tin[row + i + 1] = targets[b][i];
      tout[row + i] = targets[b][i];
    }
    tout[row + n] = eos_id;
  }
  return make_model_batch(dev, B, S, T, src, lengths, tin, tout);
}

SourceBatch make_source_batch(Device& dev, const std::vector<std::vector<int32_t>>& sources,
                              int min_S) {
  SourceBatch s;
  s.B = static_cast<int>(sources.size());
  s.S = std::max(longest(sources, 0), min_S);
  if (s.B < 1 || s.S < 1) throw std::invalid_argument("make_source_batch: no source tokens");
  std::vector<int32_t> src(static_cast<size_t>(s.B) * s.S, kPadId),
      lengths(static_cast<size_t>(s.B));
  for (int b = 0; b < s.B; ++b) {
    if (sources[b].empty())
      throw std::invalid_argument("make_source_batch: source " + std::to_string(b) + " is empty");
    std::copy(sources[b].begin(), sources[b].end(), src.begin() + static_cast<size_t>(b) * s.S);
    lengths[b] = static_cast<int32_t>(sources[b].size());
  }
  s.src = Tensor::from_host_ids(dev, Shape{s.B, s.S}, src);
  s.src_lengths = Tensor::from_host_ids(dev, Shape{s.B}, lengths);
  return s;
}

void Seq2SeqModel::initialize(ParameterArena& arena, uint64_t seed) const {
  if (plan_.empty()) throw std::logic_error(name() + ": initialize() before declare()");
  plan_.initialize(arena, seed);
}

Var Seq2SeqModel::loss(Graph& g, const ParameterArena& arena, const ModelBatch& batch) const {
  Var y = logits(g, arena, batch);
  const int64_t rows = static_cast<int64_t>(batch.B) * batch.T;
  Var flat = ops::reshape(y, Shape{rows, vocab_size()});
  return ops::cross_entropy(flat, batch.tgt_out.view(Shape{rows}), label_smoothing(), kPadId);
}

std::unique_ptr<Seq2SeqModel> make_model(const ModelConfig& cfg) {
  if (cfg.vocab_size < 8)
    throw std::invalid_argument("make_model: vocab_size " + std::to_string(cfg.vocab_size) +
                                " < 8");
  if (cfg.type == ModelType::Transformer)
    return std::make_unique<TransformerModel>(cfg.vocab_size, cfg.transformer);
  return std::make_unique<RnnModel>(cfg.vocab_size, cfg.rnn);
}

}  // namespace sl
