#pragma once
#include <cstdint>
#include <vector>

#include "distributed/comm_accounting.h"
#include "distributed/distributed_config.h"
#include "distributed/gradient_exchange.h"
#include "distributed/tensor_view.h"

namespace sl {

// powersgd (Vogels, Karimireddy, Jaggi 2019; BEYOND.md): per tensor W (n x m)
// with min_compression_rate * r (n + m) < n m, with E_n starting at 0 and Q (m x r) drawn
// N(0, 1) from random_seed (the same on every node):
//   M = g_n(W) + E_n(W);  P = allreduce_sum(M Q);  P^ = orthonormalise(P);
//   Q = allreduce_sum(M^T P^);  G(W) = P^ Q^T (~ sum_n M_n);  E_n(W) = M - G(W) / N
// and G = allreduce_sum(g_n) for the other tensors (vectors, biases, layer-norm gains, small
// matrices): their E_n stays 0. The P (Q) factors of all compressed tensors travel in one
// all-reduce, as in PyTorch's hook. Q is kept for the next step (warm start), or redrawn
// from (random_seed, step) every step. For steps t < warmup_steps the whole gradient is
// all-reduced, exactly as `dense` does. G is the same on every node: no averaging needed.
// Elements outside every tensor (alignment padding) are not sent after the warm-up.
// Against PyTorch's hook: it also orthonormalises Q before each step, which changes P only
// by an invertible map of its columns, so P^ P^T, hence G, is the same up to rounding; and it
// keeps a residual on the tensors it all-reduces dense (M - mean), whose sum over the nodes
// is 0, so it changes G only by rounding: here E_n is 0 there, as BEYOND.md says.
class PowerSgdExchange : public GradientExchange {
 public:
  PowerSgdExchange(CommAccounting& acct, size_t P, const std::vector<TensorView>& tensors,
                   const PowerSgdConfig& o);
  ExchangeResult exchange(float* grad, int64_t step, StepStats& stats) override;
  // "powersgd_error" (E_n, P floats; 0 outside compressed tensors), "powersgd_q" (every Q).
  void state(std::vector<StateBuffer>& out) override;

  // Which tensors are compressed (PyTorch's _should_compress with this rate).
  static bool compresses(const TensorView& w, int64_t rank, double min_compression_rate);

 private:
  struct Factor {
    TensorView w;
    size_t p_at, q_at;  // where its P and Q start in P_ / Q_
  };
  void draw_q(uint64_t stream_base);

  CommAccounting& acct_;
  PowerSgdConfig opt_;
  size_t P_, r_;
  std::vector<Factor> factors_;
  std::vector<TensorView> dense_;
  size_t dense_floats_ = 0;
  std::vector<float> E_, Pf_, Qf_, dense_buf_, G_;
};

}  // namespace sl
