#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "distributed/comm_accounting.h"
#include "distributed/dct.h"
#include "distributed/distributed_config.h"
#include "distributed/gradient_exchange.h"
#include "distributed/pair_encoding.h"
#include "distributed/tensor_view.h"

namespace sl {

// demo, decoupled momentum (Peng, Quesnelle, Kingma 2024; BEYOND.md). Per step on
// node n, with m_n starting at 0:
//   m_n = beta m_n + g_n
//   each tensor (rows x cols) is cut into chunks of h x w, h = dct_chunk_length(rows, s),
//   w = dct_chunk_length(cols, s) (a vector: h x 1); X = DCT-II of each chunk (dct.h)
//   q_n = the min(k, h w) largest |X| of each chunk (ties: the lower index), with indices
//   m_n = m_n - IDCT(q_n)                      the sent part leaves the momentum
//   Q   = IDCT(sum_m q_m) / N                  = mean over nodes of IDCT(q_m) (linear), the
//                                                pairs all-gathered and scatter-added in rank
//                                                order, so Q is the same on every node
// and U_n = Q: the update rule is the trainer's optimizer (train.optimizer "sign": theta -=
// lr sign(Q), DeMo's). Pairs are (coefficient index, value) in a coefficient space of P
// floats: tensor W's chunk c holds [offset_W + c h w, offset_W + (c + 1) h w), its
// coefficients row-major, so they travel in the sparse methods' encodings. Elements outside
// every tensor (alignment padding, g_n = 0 there) keep g_n.
// Against DeMo's code: it accumulates lr_t g_n into the momentum (BEYOND.md: g_n), and
// averages each coefficient over the nodes that sent it rather than over all N; under the
// sign update the latter gives the same sign.
class DctTopKExchange : public GradientExchange {
 public:
  DctTopKExchange(CommAccounting& acct, size_t P, const std::vector<TensorView>& tensors,
                  const DeMoConfig& o, PairEncodingKind encoding);
  ExchangeResult exchange(float* grad, int64_t step, StepStats& stats) override;
  int variable_allgathers_per_step() const override { return 1; }
  void state(std::vector<StateBuffer>& out) override {
    out.push_back({"demo_momentum", m_.data(), m_.size()});
  }
  // Chunks and pairs a node sends per step with this layout (for the byte counts).
  size_t chunks() const { return chunks_; }
  size_t pairs_per_step() const { return pairs_; }

 private:
  struct Grid {
    TensorView w;
    size_t h, cw;  // chunk rows and columns
    const DctBasis *bh, *bw;
  };
  const DctBasis* basis(size_t n);
  // Chunk (y, x) of grid g: copied out of a tensor-layout buffer into a contiguous h x cw
  // block; or written back, dst = op(dst, block) per element.
  static void gather_chunk(const Grid& g, size_t y, size_t x, const float* src, float* block);
  template <class Op>
  static void scatter_chunk(const Grid& g, size_t y, size_t x, const float* block, float* dst,
                            Op op);

  CommAccounting& acct_;
  DeMoConfig opt_;
  size_t P_, chunks_ = 0, pairs_ = 0;
  std::map<size_t, std::unique_ptr<DctBasis>> bases_;
  std::vector<Grid> grids_;
  std::unique_ptr<PairEncoding> encoding_;
  std::vector<float> m_, Gc_, block_, coef_, scratch_;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> picked_;
  std::vector<SparsePair> q_;
  std::vector<uint8_t> wire_;
  std::vector<std::vector<uint8_t>> received_;
};

// The positions of the k largest |X[i]| of X[0..n) (NaN above +inf; among equal magnitudes
// the lower index first), in increasing order. `keys` is scratch.
void top_k_of_chunk(const float* X, size_t n, size_t k, std::vector<uint64_t>& keys,
                    std::vector<uint32_t>& out);

}  // namespace sl
