#pragma once
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "autograd/step_products.h"
#include "models/model_config.h"
#include "models/parameter_init.h"

// Building blocks shared by the Transformer and the RNN.
namespace sl {

// The parameter Vars of one graph, created on first use, so a parameter used at every time
// step is one tape node, not one per step.
class ParameterVars {
 public:
  ParameterVars(Graph& g, const ParameterArena& arena)
      : g_(g), arena_(arena), vars_(static_cast<size_t>(arena.count())) {}
  Var operator[](int index);
  Graph& graph() const { return g_; }

 private:
  Graph& g_;
  const ParameterArena& arena_;
  std::vector<Var> vars_;
};

// y = x W + b with W [in, out] and b [out] (b = -1: no bias).
struct Linear {
  int w = -1, b = -1;
};
Linear declare_linear(InitializationPlan& plan, ParameterArena& arena, const std::string& name,
                      int in, int out, bool bias = true,
                      ParamInit w_init = ParamInit::GlorotUniform);
Var apply_linear(ParameterVars& p, const Linear& l, const Var& x);
// The same Linear applied at every step of a recurrence: W's gradient is one product over all
// steps (ops::StepProducts). Create it before the steps.
ops::StepProducts step_linear(ParameterVars& p, const Linear& l);

// The embedding tables and the output layer, tied as configured: "all" (one shared table),
// "output" (the target table is the output projection), "none". Declared in this order
// (source, target, output w, output b), so parameter names and checkpoints are the same for
// every model that uses it.
struct EmbeddingTables {
  int src = -1, tgt = -1, output_w = -1, output_b = -1;
};
EmbeddingTables declare_embedding_tables(InitializationPlan& plan, ParameterArena& arena,
                                         TiedEmbeddings tied, EmbeddingInit init, int vocab,
                                         int dim);

// A decoder step gets one previous token per row of its state; std::invalid_argument otherwise.
void check_step_tokens(const char* model, size_t tokens, int rows);

struct LayerNormParams {
  int gamma = -1, beta = -1;
};
LayerNormParams declare_layer_norm(InitializationPlan& plan, ParameterArena& arena,
                                   const std::string& name, int dim);
Var apply_layer_norm(ParameterVars& p, const LayerNormParams& n, const Var& x);

// Vaswani et al. sinusoidal encodings of positions [start, start + length): [length, dim],
// PE(pos, 2i) = sin(pos / 10000^(2i/dim)), PE(pos, 2i+1) = cos(same angle).
Tensor sinusoidal_positions(Device& dev, int start, int length, int dim);

// Rows `rows` of t along its first axis, in that order (duplicates allowed): the hypothesis
// selection of beam search. Works for float32 and int32 tensors.
Tensor select_rows(const Tensor& t, const std::vector<int32_t>& rows);

// Host copy of an int32 tensor of sentence lengths, checked against [1, max_len]; read from the
// copy the tensor kept at upload when it has one (no device round trip).
std::vector<int32_t> host_lengths(const Tensor& lengths, int max_len);

}  // namespace sl
