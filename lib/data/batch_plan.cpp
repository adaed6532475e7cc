#include "data/batch_plan.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <string>

#include "common/counter_rng.h"
#include "common/input_error.h"

namespace sl {
namespace {

// Streams of the counter RNG reserved for batching ("DATA" in the high bits), so they
// never coincide with streams other layers derive from the same seed.
constexpr uint64_t kStreamBase = 0x4441544100000000ull;

template <typename T>
void shuffle(std::vector<T>& v, uint64_t seed, uint64_t stream) {
  CounterRng rng(seed, stream);
  for (size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<size_t>(
        (static_cast<unsigned __int128>(rng.next_u64()) * i) >> 64);  // unbiased in [0, i)
    std::swap(v[i - 1], v[j]);
  }
}

using Step = std::vector<std::vector<uint32_t>>;  // one batch per shard

// Cuts one length-sorted maxi-batch into steps. Consecutive sentences form rows of
// `shards` sentences (neighbours in length); column c of row i goes to shard (c + i) % shards
// so no shard always gets the longest. Rows are cut greedily so that rows * (longest target
// in the rows) <= max_tokens: every shard's batch of a step then fits the budget and all
// shards do nearly the same work. When the count is not a multiple of `shards`, the first
// row (shortest sentences, so in a batch with many rows) is the incomplete one.
void cut_into_steps(const std::vector<uint32_t>& sorted, const std::vector<int32_t>& tgt,
                    size_t shards, int64_t max_tokens, std::vector<Step>& steps) {
  const size_t n = sorted.size();
  const size_t skip = (shards - n % shards) % shards;  // missing slots of row 0
  const size_t rows = (n + skip) / shards;
  auto row_end = [&](size_t row) { return (row + 1) * shards - skip; };  // one past, in sorted
  auto width = [&](size_t row) { return static_cast<int64_t>(tgt[sorted[row_end(row) - 1]]); };
  size_t first = 0;
  while (first < rows) {
    size_t end = first + 1;
    while (end < rows && static_cast<int64_t>(end + 1 - first) * width(end) <= max_tokens) ++end;
    Step step(shards);
    for (size_t v = std::max(first * shards, skip); v < end * shards; ++v) {
      const size_t row = v / shards, col = v % shards;
      step[(col + row) % shards].push_back(sorted[v - skip]);
    }
    steps.push_back(std::move(step));
    first = end;
  }
}

}  // namespace

void validate(const BatchOptions& o) {
  if (o.max_length < 2) {
    throw InputError("batch.max_length", "is " + std::to_string(o.max_length) + " (expected >= 2)");
  }
  if (o.max_tokens < o.max_length) {
    throw InputError("batch.max_tokens", "is " + std::to_string(o.max_tokens) +
                                             " (expected >= max_length " +
                                             std::to_string(o.max_length) + ")");
  }
  if (o.maxi_batch < 1) {
    throw InputError("batch.maxi_batch", "is " + std::to_string(o.maxi_batch) + " (expected >= 1)");
  }
  if (o.num_shards < 1 || o.shard < 0 || o.shard >= o.num_shards) {
    throw InputError("batch.shard", "shard " + std::to_string(o.shard) + " of " +
                                        std::to_string(o.num_shards) +
                                        " (expected 0 <= shard < num_shards)");
  }
}

std::vector<std::vector<std::vector<uint32_t>>> plan_epoch(
    const std::vector<int32_t>& src_lengths, const std::vector<int32_t>& tgt_lengths,
    const BatchOptions& o, uint64_t epoch) {
  validate(o);
  const size_t n = tgt_lengths.size();
  const auto shards = static_cast<size_t>(o.num_shards);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  shuffle(order, o.seed, kStreamBase + 2 * epoch);

  const double mean_len =
      n ? std::accumulate(tgt_lengths.begin(), tgt_lengths.end(), 0.0) / static_cast<double>(n)
        : 1.0;
  const auto per_batch = static_cast<size_t>(
      std::max(1.0, static_cast<double>(o.max_tokens) / std::max(1.0, mean_len)));
  const size_t maxi = std::max(shards, static_cast<size_t>(o.maxi_batch) * shards * per_batch);
  const size_t chunks = std::max<size_t>(1, n / maxi);

  std::vector<Step> steps;
  for (size_t c = 0; c < chunks; ++c) {
    const auto begin = order.begin() + static_cast<std::ptrdiff_t>(c * maxi);
    const auto end = c + 1 == chunks ? order.end() : begin + static_cast<std::ptrdiff_t>(maxi);
    std::vector<uint32_t> chunk(begin, end);
    std::sort(chunk.begin(), chunk.end(), [&](uint32_t a, uint32_t b) {
      if (tgt_lengths[a] != tgt_lengths[b]) return tgt_lengths[a] < tgt_lengths[b];
      if (src_lengths[a] != src_lengths[b]) return src_lengths[a] < src_lengths[b];
      return a < b;
    });
    cut_into_steps(chunk, tgt_lengths, shards, o.max_tokens, steps);
  }
  shuffle(steps, o.seed, kStreamBase + 2 * epoch + 1);
  return steps;
}

}  // namespace sl
