#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/comm_accounting.h"
#include "distributed/gradient_exchange.h"
#include "distributed/pair_encoding.h"
#include "distributed/top_k_compressor.h"

namespace sl {

// sparse (gradient dropping): A_n = g_n + E_n, S_n = top (1 - rho_t) of |A_n|,
// E_n = A_n - S_n (TopKCompressor), S_n encoded (PairEncoding) and all-gathered, then
// G = sum_m S_m by scatter-add in rank order m = 0..N-1 into a zeroed buffer, so G is
// bit-identical on every node.
class SparseAllGatherExchange : public GradientExchange {
 public:
  struct Options {
    double drop_ratio = 0.99;     // rho
    int64_t warmup_steps = 1000;  // W (drop_ratio_schedule.h)
    ThresholdMode threshold = ThresholdMode::Exact;
    size_t sample_size = 100000;
    PairEncodingKind encoding = PairEncodingKind::Pairs32;
  };
  SparseAllGatherExchange(CommAccounting& acct, size_t P, const Options& o);
  ExchangeResult exchange(float* grad, int64_t step, StepStats& stats) override;
  ErrorFeedback* error_feedback() override { return &E_; }
  int variable_allgathers_per_step() const override { return 1; }
  void state(std::vector<StateBuffer>& out) override {
    out.push_back({"residual", E_.data(), E_.size()});
  }

 private:
  CommAccounting& acct_;
  size_t P_;
  Options opt_;
  TopKCompressor compressor_;
  std::unique_ptr<PairEncoding> encoding_;
  ErrorFeedback E_;
  std::vector<SparsePair> S_;
  std::vector<uint8_t> wire_;
  std::vector<std::vector<uint8_t>> received_;
  std::vector<float> G_;
};

}  // namespace sl
