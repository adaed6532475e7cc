#include "models/layers.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "autograd/ops.h"

namespace sl {

Var ParameterVars::operator[](int index) {
  if (index < 0 || index >= static_cast<int>(vars_.size()))
    throw std::logic_error("ParameterVars: parameter index " + std::to_string(index) +
                           " was never declared");
  Var& v = vars_[static_cast<size_t>(index)];
  if (!v.defined()) v = g_.param(arena_, index);
  return v;
}

Linear declare_linear(InitializationPlan& plan, ParameterArena& arena, const std::string& name,
                      int in, int out, bool bias, ParamInit w_init) {
  Linear l;
  l.w = plan.declare(arena, name + "/w", Shape{in, out}, w_init);
  if (bias) l.b = plan.declare(arena, name + "/b", Shape{out}, ParamInit::Zeros);
  return l;
}

Var apply_linear(ParameterVars& p, const Linear& l, const Var& x) {
  return l.b >= 0 ? ops::linear(x, p[l.w], p[l.b]) : ops::matmul(x, p[l.w]);
}

ops::StepProducts step_linear(ParameterVars& p, const Linear& l) {
  return ops::StepProducts(p.graph(), p[l.w], l.b >= 0 ? p[l.b] : Var());
}

LayerNormParams declare_layer_norm(InitializationPlan& plan, ParameterArena& arena,
                                   const std::string& name, int dim) {
  LayerNormParams n;
  n.gamma = plan.declare(arena, name + "/gamma", Shape{dim}, ParamInit::Ones);
  n.beta = plan.declare(arena, name + "/beta", Shape{dim}, ParamInit::Zeros);
  return n;
}

Var apply_layer_norm(ParameterVars& p, const LayerNormParams& n, const Var& x) {
  return ops::layer_norm(x, p[n.gamma], p[n.beta]);
}

Tensor sinusoidal_positions(Device& dev, int start, int length, int dim) {
  std::vector<float> v(static_cast<size_t>(length) * static_cast<size_t>(dim));
  for (int t = 0; t < length; ++t) {
    const double pos = start + t;
    for (int i = 0; i < dim; ++i) {
      const double angle = pos / std::pow(10000.0, static_cast<double>(i - i % 2) / dim);
      v[static_cast<size_t>(t) * dim + i] =
          static_cast<float>(i % 2 ? std::cos(angle) : std::sin(angle));
    }
  }
  return Tensor::from_host(dev, Shape{length, dim}, v);
}

Tensor select_rows(const Tensor& t, const std::vector<int32_t>& rows) {
  const Shape& s = t.shape();
  if (s.rank() < 1) throw std::invalid_argument("select_rows: scalar tensor");
  const int64_t n = s[0];
  for (int32_t r : rows)
    if (r < 0 || r >= n)
      throw std::out_of_range("select_rows: row " + std::to_string(r) + " of " + s.str());
  std::vector<int64_t> dims = s.dims();
  dims[0] = static_cast<int64_t>(rows.size());
  const int64_t width = n == 0 ? 0 : t.numel() / n;
  Device& dev = t.device();
  if (t.dtype() == DType::I32) {
    std::vector<int32_t> src = t.to_host_ids(), dst;
    dst.reserve(rows.size() * static_cast<size_t>(width));
    for (int32_t r : rows)
      dst.insert(dst.end(), src.begin() + r * width, src.begin() + (r + 1) * width);
    return Tensor::from_host_ids(dev, Shape(dims), dst);
  }
  Tensor y = Tensor::empty(dev, Shape(dims));
  if (!rows.empty() && width > 0) {
    Tensor ids = Tensor::from_host_ids(dev, Shape{static_cast<int64_t>(rows.size())}, rows);
    dev.embedding(static_cast<int>(rows.size()), static_cast<int>(width), t.f32(), ids.i32(),
                  y.f32());
  }
  return y;
}

std::vector<int32_t> host_lengths(const Tensor& lengths, int max_len) {
  std::vector<int32_t> h = lengths.to_host_ids();
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i] < 1 || h[i] > max_len)
      throw std::invalid_argument("sentence " + std::to_string(i) + " has length " +
                                  std::to_string(h[i]) + ", expected 1.." +
                                  std::to_string(max_len));
  return h;
}

EmbeddingTables declare_embedding_tables(InitializationPlan& plan, ParameterArena& arena,
                                         TiedEmbeddings tied, EmbeddingInit init, int vocab,
                                         int dim) {
  const Shape table{vocab, dim};
  const ParamInit emb = param_init(init);
  EmbeddingTables t;
  switch (tied) {
    case TiedEmbeddings::All:
      t.src = plan.declare(arena, "embeddings/shared", table, emb);
      t.tgt = t.output_w = t.src;
      break;
    case TiedEmbeddings::Output:
      t.src = plan.declare(arena, "embeddings/source", table, emb);
      t.tgt = t.output_w = plan.declare(arena, "embeddings/target", table, emb);
      break;
    case TiedEmbeddings::None:
      t.src = plan.declare(arena, "embeddings/source", table, emb);
      t.tgt = plan.declare(arena, "embeddings/target", table, emb);
      t.output_w = plan.declare(arena, "output/w", table, emb);
      break;
  }
  t.output_b = plan.declare(arena, "output/b", Shape{vocab}, ParamInit::Zeros);
  return t;
}

void check_step_tokens(const char* model, size_t tokens, int rows) {
  if (static_cast<int64_t>(tokens) != rows)
    throw std::invalid_argument(std::string(model) + "::step: " + std::to_string(tokens) +
                                " tokens for " + std::to_string(rows) + " rows");
}

}  // namespace sl
