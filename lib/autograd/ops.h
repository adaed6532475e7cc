#pragma once
#include <vector>

#include "autograd/graph.h"

// The operators models are built from. Each records its backward on the graph's tape and
// runs on whatever Device its inputs live on. Shapes are checked; a mismatch throws
// std::invalid_argument naming the op and both shapes.
namespace sl::ops {

// ---- products
// a [..., K] (seen as rows x K) times b [K, N] -> [..., N]; trans_b: b is [N, K].
Var matmul(const Var& a, const Var& b, bool trans_b = false);
// matmul(a, w, trans_b) + bias [N] over every row, as one op: the output is preset to the bias
// rows and the product accumulated onto it (GEMM beta = 1), so no separate pass over the
// output adds the bias (BLAS zero-fills the output for beta = 0 anyway). Same gradients as
// add(matmul(...), bias); the forward equals it to the last bit when the BLAS does the whole
// K in one block and to float rounding otherwise (the bias joins the sum at another point).
Var linear(const Var& a, const Var& w, const Var& bias, bool trans_b = false);
// Batched: a [batch..., M, K] x b [batch..., K, N] -> [batch..., M, N] (optionally transposed
// last two dims of either); batch dims must match.
Var bmm(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);

// Attention over heads kept in place in [B, T, heads * Dh] activations (no split / merge
// copies; the bits of bmm on the split heads):
// scores [B, heads, T, S] = q_h k_h^T per head, q [B, T, D], k [B, S, D];
Var head_scores(const Var& q, const Var& k, int heads);
// context [B, T, D] = w_h v_h per head, merged: w [B, heads, T, S], v [B, S, D].
Var head_context(const Var& w, const Var& v, int heads);

// ---- element-wise
// Same shapes, or b's shape equal to a's trailing dims (bias broadcast over rows).
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);  // same shapes
Var mul(const Var& a, const Var& b);  // same shapes
Var scale(const Var& a, float s);
Var relu(const Var& a);
Var tanh(const Var& a);
Var sigmoid(const Var& a);
// Per-row blend for padded RNN steps: m [rows] of 0/1 (a constant), a and b [rows, cols]:
// m * a + (1 - m) * b.
Var blend_rows(const Tensor& m, const Var& a, const Var& b);
// Dropout with probability p, inverted scaling; identity when the graph's dropout is off or
// p == 0. The mask comes from the graph's counter stream (reproducible, device independent).
Var dropout(const Var& a, float p);

// ---- shape and layout
Var reshape(const Var& a, const Shape& s);
// 4-D permutation: result dim i is input dim perm[i].
Var permute(const Var& a, const std::vector<int>& perm);
Var transpose2d(const Var& a);
Var concat(const std::vector<Var>& parts, int axis);
Var slice(const Var& a, int axis, int64_t start, int64_t length);
// rows of table [V, D] picked by ids (int32 tensor of any shape) -> ids.shape + [D]
Var embedding(const Var& table, const Tensor& ids);

// ---- last-axis normalisations
Var softmax(const Var& a);
Var log_softmax(const Var& a);
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, float eps = 1e-6f);
// scores [B, H, Tq, Tk] -> softmax over Tk with keys k >= key_lengths[b] (int32 [B]; an
// undefined Tensor: every key is real) and, when causal, k > q masked out.
Var attention_softmax(const Var& scores, const Tensor& key_lengths, bool causal);

// ---- reductions and losses
Var sum(const Var& a);   // scalar
Var mean(const Var& a);  // scalar
// Label-smoothed cross-entropy, SUMMED over rows whose target != pad_id: logits [R, V],
// targets int32 [R]. The trainer divides by the token count (PAPER.md's g_n scaling).
Var cross_entropy(const Var& logits, const Tensor& targets, float smoothing, int pad_id);

// ---- recurrent
// One GRU step from projected inputs xw [B,3H] and projected state hu [B,3H] (biases
// included) and h_prev [B,H] -> h [B,H]. See Device::gru_cell for the equations.
Var gru_cell(const Var& xw, const Var& hu, const Var& h_prev);
// Additive (Bahdanau) attention scores, one query per batch row:
//   scores[b,s] = tanh(keys[b,s,:] + q[b,:]) v      keys [B,S,A], q [B,A], v [A,1] -> [B,S,1]
// One fused op: the query repeated over S, tanh's input and the gradient of tanh's output are
// never formed (each would be another [B,S,A] per decoder step). Same bits as the unfused
// graph tanh(keys + repeat(q)) v.
Var additive_attention_scores(const Var& keys, const Var& q, const Var& v);

}  // namespace sl::ops
