#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "data/batch.h"
#include "data/batch_plan.h"
#include "data/token_pair.h"

namespace sl {

// Where a BatchGenerator stands: the next batch it yields is batch `batch` of epoch `epoch`.
// Two integers, so a checkpoint stores it as plain JSON numbers.
struct BatchPosition {
  uint64_t epoch = 0;
  uint64_t batch = 0;
  bool operator==(const BatchPosition& o) const { return epoch == o.epoch && batch == o.batch; }
};

// Endless stream of token-budgeted batches for one shard (node) of a distributed run; see
// plan_epoch for the order. All shards of one run yield the same number of batches per
// epoch, and together every kept sentence exactly once per epoch. Batch::ids are indices
// into the `pairs` the generator was built from.
class BatchGenerator {
 public:
  // Drops pairs with a side longer than options.max_length tokens (with EOS). InputError
  // when options are invalid or fewer than num_shards pairs remain.
  BatchGenerator(std::vector<TokenPair> pairs, const BatchOptions& options);

  Batch next();  // moves to the next epoch after its last batch

  BatchPosition state() const { return position_; }
  // Continue exactly where `state()` was taken; InputError when the position lies past the
  // end of its epoch.
  void restore(const BatchPosition& position);

  size_t batches_in_epoch(uint64_t epoch);  // same on every shard
  // Epochs whose every batch has been returned: the position stays at the end of an epoch
  // until the next call of next() moves it, so state().epoch alone lags by one there.
  uint64_t epochs_done();
  size_t sentences() const { return kept_.size(); }
  size_t dropped() const { return dropped_; }
  const BatchOptions& options() const { return options_; }

 private:
  const std::vector<std::vector<std::vector<uint32_t>>>& plan(uint64_t epoch);

  BatchOptions options_;
  std::vector<TokenPair> kept_;
  std::vector<uint32_t> original_index_;
  std::vector<int32_t> src_lengths_, tgt_lengths_;
  size_t dropped_ = 0;
  BatchPosition position_;
  uint64_t planned_epoch_ = 0;
  bool have_plan_ = false;
  std::vector<std::vector<std::vector<uint32_t>>> plan_;
};

}  // namespace sl
