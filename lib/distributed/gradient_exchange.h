#pragma once
#include <cstdint>
#include <vector>

#include "distributed/error_feedback.h"
#include "distributed/sparse_pair.h"
#include "distributed/state_buffer.h"
#include "distributed/step_stats.h"

namespace sl {

// What an exchange leaves for the Combiner. G may be the gradient buffer itself (dense:
// reduced in place; fedavg: no exchange, so the "global" gradient is g_n). S and E exist
// only for sparse exchanges. G is scratch once combined (the partial combiner edits it).
struct ExchangeResult {
  float* G = nullptr;
  const std::vector<SparsePair>* S = nullptr;  // this node's S_n, increasing indices
  ErrorFeedback* E = nullptr;                  // this node's E_n
};

// Compressor + error feedback + transport: from g_n (in `grad`, left unchanged unless the
// result's G == grad) to G = sum_m (what node m sent).
class GradientExchange {
 public:
  virtual ~GradientExchange() = default;
  virtual ExchangeResult exchange(float* grad, int64_t step, StepStats& stats) = 0;
  virtual ErrorFeedback* error_feedback() { return nullptr; }
  // Appends the buffers an exact resume needs (none for a stateless exchange).
  virtual void state(std::vector<StateBuffer>& /*out*/) {}
  // Variable-size all-gathers per step (each preceded by an exchange of block sizes, which
  // comm model 1 left out of the modeled time: comm_accounting.h).
  virtual int variable_allgathers_per_step() const { return 0; }
};

}  // namespace sl
