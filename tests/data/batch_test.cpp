#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/counter_rng.h"
#include "common/input_error.h"
#include "data/batch.h"
#include "data/batch_generator.h"
#include "data/vocab.h"

namespace sl {
namespace {

// Pairs with lengths 1..60 (src) and 1..60 (tgt), ids >= 4 encoding the pair index.
std::vector<TokenPair> synthetic(size_t n, uint64_t seed = 7) {
  CounterRng rng(seed, 0);
  std::vector<TokenPair> pairs(n);
  for (size_t i = 0; i < n; ++i) {
    pairs[i].src.assign(1 + rng.next_u64() % 60, static_cast<int32_t>(4 + i % 1000));
    pairs[i].tgt.assign(1 + rng.next_u64() % 60, static_cast<int32_t>(4 + i % 1000));
  }
  return pairs;
}

BatchOptions options(int shards = 1, int shard = 0) {
  BatchOptions o;
  o.max_tokens = 600;
  o.max_length = 50;
  o.maxi_batch = 4;
  o.seed = 11;
  o.num_shards = shards;
  o.shard = shard;
  return o;
}

std::vector<Batch> epoch_batches(BatchGenerator& g, uint64_t epoch) {
  g.restore({epoch, 0});
  std::vector<Batch> out;
  for (size_t i = g.batches_in_epoch(epoch); i > 0; --i) out.push_back(g.next());
  return out;
}

std::vector<std::vector<uint32_t>> ids_of(const std::vector<Batch>& batches) {
  std::vector<std::vector<uint32_t>> out;
  for (const auto& b : batches) out.push_back(b.ids);
  return out;
}

TEST(MakeBatch, PadsAndShiftsTargets) {
  std::vector<TokenPair> pairs = {{{10, 11, 12}, {20, 21}}, {{13}, {22, 23, 24}}};
  const Batch b = make_batch(pairs);
  ASSERT_EQ(b.B, 2);
  ASSERT_EQ(b.S, 4);
  ASSERT_EQ(b.T, 4);
  EXPECT_EQ(b.src, (std::vector<int32_t>{10, 11, 12, vocab::kEos, 13, vocab::kEos, 0, 0}));
  EXPECT_EQ(b.tgt_in, (std::vector<int32_t>{vocab::kBos, 20, 21, 0, vocab::kBos, 22, 23, 24}));
  EXPECT_EQ(b.tgt_out, (std::vector<int32_t>{20, 21, vocab::kEos, 0, 22, 23, 24, vocab::kEos}));
  EXPECT_EQ(b.src_lengths, (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(b.tgt_lengths, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(b.src_tokens, 6);
  EXPECT_EQ(b.tgt_tokens, 7);
  EXPECT_EQ(b.tgt_out_at(1, 3), vocab::kEos);
}

TEST(MakeBatch, SourceOnlyPairsForDecoding) {
  const Batch b = make_batch({{{5, 6}, {}}});
  EXPECT_EQ(b.T, 1);
  EXPECT_EQ(b.tgt_in, (std::vector<int32_t>{vocab::kBos}));
  EXPECT_EQ(b.tgt_out, (std::vector<int32_t>{vocab::kEos}));
}

TEST(BatchGenerator, RespectsTokenBudgetAndDropsLongPairs) {
  const auto pairs = synthetic(3000);
  BatchGenerator g(pairs, options());
  size_t expected_dropped = 0;
  for (const auto& p : pairs) expected_dropped += p.src.size() + 1 > 50 || p.tgt.size() + 1 > 50;
  EXPECT_EQ(g.dropped(), expected_dropped);
  EXPECT_GT(g.dropped(), 0u);
  for (const Batch& b : epoch_batches(g, 0)) {
    EXPECT_LE(static_cast<int64_t>(b.B) * b.T, 600);
    EXPECT_LE(b.S, 50);
    EXPECT_LE(b.T, 50);
  }
}

double real_over_padded(const std::vector<TokenPair>& pairs, int maxi_batch) {
  BatchOptions o = options();
  o.maxi_batch = maxi_batch;
  BatchGenerator g(pairs, o);
  double padded = 0, real = 0;
  for (const Batch& b : epoch_batches(g, 0)) {
    padded += static_cast<double>(b.B) * b.T;
    real += static_cast<double>(b.tgt_tokens);
  }
  return real / padded;
}

TEST(BatchGenerator, LargerMaxiBatchesWasteLessPadding) {
  const auto pairs = synthetic(3000);
  const double one = real_over_padded(pairs, 1), forty = real_over_padded(pairs, 40);
  EXPECT_GT(forty, 0.95);
  EXPECT_GT(forty, one + 0.1);
}

TEST(BatchGenerator, ShardsPartitionEachEpochWithEqualStepCounts) {
  const auto pairs = synthetic(3000);
  const int shards = 4;
  std::vector<std::vector<Batch>> per_shard;
  for (int n = 0; n < shards; ++n) {
    BatchGenerator g(pairs, options(shards, n));
    per_shard.push_back(epoch_batches(g, 3));
  }
  std::map<uint32_t, int> seen;
  for (int n = 0; n < shards; ++n) {
    EXPECT_EQ(per_shard[n].size(), per_shard[0].size());
    for (const Batch& b : per_shard[n]) {
      for (uint32_t id : b.ids) ++seen[id];
    }
  }
  BatchGenerator whole(pairs, options());
  EXPECT_EQ(seen.size(), whole.sentences());
  for (const auto& [id, count] : seen) ASSERT_EQ(count, 1) << "sentence " << id;
  EXPECT_NE(ids_of(per_shard[0]), ids_of(per_shard[1]));

  // Batches of one step hold similar work on every node.
  double ratio_sum = 0;
  for (size_t k = 0; k < per_shard[0].size(); ++k) {
    int64_t lo = INT64_MAX, hi = 0;
    for (int n = 0; n < shards; ++n) {
      const int64_t t = per_shard[n][k].tgt_tokens;
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
    ratio_sum += static_cast<double>(lo) / hi;
  }
  EXPECT_GT(ratio_sum / per_shard[0].size(), 0.95);
}

TEST(BatchGenerator, SameSeedSameBatchesOtherEpochOrSeedOtherOrder) {
  const auto pairs = synthetic(2000);
  BatchGenerator a(pairs, options()), b(pairs, options());
  const auto e0 = ids_of(epoch_batches(a, 0));
  EXPECT_EQ(e0, ids_of(epoch_batches(b, 0)));
  EXPECT_NE(e0, ids_of(epoch_batches(a, 1)));
  BatchOptions other = options();
  other.seed = 12;
  BatchGenerator c(pairs, other);
  EXPECT_NE(e0, ids_of(epoch_batches(c, 0)));
  // Every epoch still covers every kept sentence once.
  std::set<uint32_t> e1;
  size_t rows = 0;
  for (const auto& ids : ids_of(epoch_batches(a, 1))) {
    e1.insert(ids.begin(), ids.end());
    rows += ids.size();
  }
  EXPECT_EQ(e1.size(), a.sentences());
  EXPECT_EQ(rows, a.sentences());
}

TEST(BatchGenerator, RestoredPositionContinuesIdentically) {
  const auto pairs = synthetic(1500);
  BatchGenerator g(pairs, options(2, 1));
  const size_t per_epoch = g.batches_in_epoch(0);
  for (size_t i = 0; i + 3 < per_epoch; ++i) g.next();  // stop 3 before the epoch ends
  const BatchPosition saved = g.state();
  std::vector<std::vector<uint32_t>> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(g.next().ids);  // crosses into epoch 1
  EXPECT_EQ(g.state().epoch, 1u);

  BatchGenerator resumed(pairs, options(2, 1));
  resumed.restore(saved);
  EXPECT_EQ(resumed.state(), saved);
  std::vector<std::vector<uint32_t>> got;
  for (int i = 0; i < 10; ++i) got.push_back(resumed.next().ids);
  EXPECT_EQ(got, expected);
}

TEST(BatchGenerator, EpochsDoneCountsAnEpochOnceItsLastBatchIsOut) {
  const auto pairs = synthetic(1500);
  BatchGenerator g(pairs, options(2, 0));
  const size_t per_epoch = g.batches_in_epoch(0);
  ASSERT_GT(per_epoch, 1u);
  EXPECT_EQ(0u, g.epochs_done());
  for (size_t i = 0; i + 1 < per_epoch; ++i) g.next();
  EXPECT_EQ(0u, g.epochs_done());  // one batch of epoch 0 left
  g.next();
  EXPECT_EQ(1u, g.epochs_done());  // all of epoch 0 out; the position has not moved on yet
  EXPECT_EQ(0u, g.state().epoch);
  g.next();                        // epoch 1's first batch
  EXPECT_EQ((BatchPosition{1, 1}), g.state());
  EXPECT_EQ(1u, g.epochs_done());
}

TEST(BatchGenerator, RejectsBadOptionsAndPositions) {
  const auto pairs = synthetic(100);
  BatchOptions o = options(2, 2);
  EXPECT_THROW(BatchGenerator(pairs, o), InputError);
  o = options();
  o.max_tokens = 10;
  EXPECT_THROW(BatchGenerator(pairs, o), InputError);
  o = options(200, 0);
  EXPECT_THROW(BatchGenerator(pairs, o), InputError);  // fewer sentences than shards
  BatchGenerator g(pairs, options());
  EXPECT_THROW(g.restore({0, g.batches_in_epoch(0) + 1}), InputError);
}

TEST(BatchGenerator, OneSentencePerBatchStillCoversTheEpochOnEveryShard) {
  // Budget == max_length: most batches hold one sentence, so the step count cannot always
  // be a multiple of the shard count by splitting; steps are then filled with empty batches.
  const auto pairs = synthetic(7);
  BatchOptions o = options(3, 0);
  o.max_tokens = 61;
  o.max_length = 61;
  std::multiset<uint32_t> seen;
  size_t steps = 0;
  for (int n = 0; n < 3; ++n) {
    o.shard = n;
    BatchGenerator g(pairs, o);
    if (n == 0) steps = g.batches_in_epoch(0);
    EXPECT_EQ(g.batches_in_epoch(0), steps);
    for (const Batch& b : epoch_batches(g, 0)) seen.insert(b.ids.begin(), b.ids.end());
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_EQ(std::set<uint32_t>(seen.begin(), seen.end()).size(), 7u);
}

}  // namespace
}  // namespace sl
