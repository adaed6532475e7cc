#include "distributed/demo_exchange.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "common/timer.h"
#include "distributed/sparse_pair.h"
#include "distributed/wire_bytes.h"

namespace sl {

void top_k_of_chunk(const float* X, size_t n, size_t k, std::vector<uint64_t>& keys,
                    std::vector<uint32_t>& out) {
  // One integer per coefficient: |X| (abs_key) above, the complement of the index below, so
  // a larger key is a larger magnitude or, among equal ones, the lower index.
  keys.resize(n);
  for (size_t i = 0; i < n; ++i)
    keys[i] =
        (static_cast<uint64_t>(abs_key(X[i])) << 32) | (0xffffffffu - static_cast<uint32_t>(i));
  k = std::min(k, n);
  if (k < n) std::nth_element(keys.begin(), keys.begin() + k, keys.end(), std::greater<uint64_t>());
  out.resize(k);
  for (size_t i = 0; i < k; ++i) out[i] = 0xffffffffu - static_cast<uint32_t>(keys[i]);
  std::sort(out.begin(), out.end());
}

DctTopKExchange::DctTopKExchange(CommAccounting& acct, size_t P,
                                 const std::vector<TensorView>& tensors, const DeMoConfig& o,
                                 PairEncodingKind encoding)
    : acct_(acct),
      opt_(o),
      P_(P),
      encoding_(make_pair_encoding(encoding)),
      m_(P_, 0.0f),
      Gc_(P_, 0.0f) {
  check_views(tensors, P);
  const size_t s = static_cast<size_t>(o.chunk), k = static_cast<size_t>(o.topk);
  size_t largest = 0;
  for (const TensorView& w : tensors) {
    if (w.size() == 0) continue;
    Grid g{w, dct_chunk_length(w.rows, s), dct_chunk_length(w.cols, s), nullptr, nullptr};
    g.bh = basis(g.h);
    g.bw = basis(g.cw);
    const size_t n = w.size() / (g.h * g.cw);
    chunks_ += n;
    pairs_ += n * std::min(k, g.h * g.cw);
    largest = std::max(largest, g.h * g.cw);
    grids_.push_back(g);
  }
  block_.resize(largest);
  coef_.resize(largest);
  scratch_.resize(largest);
}

const DctBasis* DctTopKExchange::basis(size_t n) {
  auto& b = bases_[n];
  if (!b) b = std::make_unique<DctBasis>(n);
  return b.get();
}

void DctTopKExchange::gather_chunk(const Grid& g, size_t y, size_t x, const float* src,
                                   float* block) {
  for (size_t j = 0; j < g.h; ++j)
    std::memcpy(block + j * g.cw, src + g.w.offset + (y * g.h + j) * g.w.cols + x * g.cw,
                g.cw * sizeof(float));
}

template <class Op>
void DctTopKExchange::scatter_chunk(const Grid& g, size_t y, size_t x, const float* block,
                                    float* dst, Op op) {
  for (size_t j = 0; j < g.h; ++j) {
    float* row = dst + g.w.offset + (y * g.h + j) * g.w.cols + x * g.cw;
    for (size_t l = 0; l < g.cw; ++l) row[l] = op(row[l], block[j * g.cw + l]);
  }
}

ExchangeResult DctTopKExchange::exchange(float* grad, int64_t, StepStats& stats) {
  const int N = acct_.comm().size();
  const size_t k = static_cast<size_t>(opt_.topk);
  const float beta = static_cast<float>(opt_.beta);

  double t0 = thread_cpu_seconds();
  for (size_t i = 0; i < P_; ++i) m_[i] = beta * m_[i] + grad[i];
  q_.clear();
  for (const Grid& g : grids_) {
    const size_t hw = g.h * g.cw, across = g.w.cols / g.cw;
    for (size_t y = 0; y < g.w.rows / g.h; ++y)
      for (size_t x = 0; x < across; ++x) {
        const size_t base = g.w.offset + (y * across + x) * hw;  // in coefficient space
        gather_chunk(g, y, x, m_.data(), block_.data());
        dct2(*g.bh, *g.bw, block_.data(), coef_.data(), scratch_.data());
        top_k_of_chunk(coef_.data(), hw, k, keys_, picked_);
        // q_n as a dense chunk (zeros elsewhere), its IDCT leaves the momentum.
        std::fill(block_.begin(), block_.begin() + hw, 0.0f);
        for (uint32_t i : picked_) {
          block_[i] = coef_[i];
          q_.push_back({static_cast<uint32_t>(base + i), coef_[i]});
        }
        idct2(*g.bh, *g.bw, block_.data(), coef_.data(), scratch_.data());
        scatter_chunk(g, y, x, coef_.data(), m_.data(), [](float a, float b) { return a - b; });
      }
  }
  encoding_->encode(q_, wire_);
  stats.compress_seconds += thread_cpu_seconds() - t0;

  acct_.measure(stats, [&] { acct_.comm().allgather_bytes(wire_, received_); });

  t0 = thread_cpu_seconds();
  std::fill(Gc_.begin(), Gc_.end(), 0.0f);
  size_t max_block = 0;
  for (int m = 0; m < N; ++m) {
    encoding_->decode_add(received_[m], Gc_.data(), P_);
    max_block = std::max(max_block, received_[m].size());
  }
  const float Nf = static_cast<float>(N);
  for (const Grid& g : grids_) {
    const size_t hw = g.h * g.cw, across = g.w.cols / g.cw;
    for (size_t y = 0; y < g.w.rows / g.h; ++y)
      for (size_t x = 0; x < across; ++x) {
        idct2(*g.bh, *g.bw, Gc_.data() + g.w.offset + (y * across + x) * hw, block_.data(),
              scratch_.data());
        scatter_chunk(g, y, x, block_.data(), grad, [Nf](float, float b) { return b / Nf; });
      }
  }
  stats.decompress_seconds += thread_cpu_seconds() - t0;
  stats.compress_clock = "thread_cpu";

  stats.dct_chunks = static_cast<int64_t>(chunks_);
  stats.dct_pairs = static_cast<int64_t>(q_.size());
  stats.encoded_bytes = static_cast<int64_t>(wire_.size());
  stats.bytes_per_pair = q_.empty() ? 0.0 : static_cast<double>(wire_.size()) / q_.size();
  stats.analytic_bytes_sent += analytic_allgather_bytes(wire_.size(), N);
  acct_.model_variable_allgather(stats, static_cast<double>(max_block));
  return {grad};
}

}  // namespace sl
