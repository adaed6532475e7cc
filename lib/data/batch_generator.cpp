#include "data/batch_generator.h"

#include <string>

#include "common/input_error.h"

namespace sl {

BatchGenerator::BatchGenerator(std::vector<TokenPair> pairs, const BatchOptions& options)
    : options_(options) {
  validate(options_);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto src_len = static_cast<int64_t>(pairs[i].src.size()) + 1;
    const auto tgt_len = static_cast<int64_t>(pairs[i].tgt.size()) + 1;
    if (src_len > options_.max_length || tgt_len > options_.max_length) {
      ++dropped_;
      continue;
    }
    src_lengths_.push_back(static_cast<int32_t>(src_len));
    tgt_lengths_.push_back(static_cast<int32_t>(tgt_len));
    original_index_.push_back(static_cast<uint32_t>(i));
    kept_.push_back(std::move(pairs[i]));
  }
  if (kept_.size() < static_cast<size_t>(options_.num_shards)) {
    throw InputError("corpus", std::to_string(kept_.size()) + " of " +
                                   std::to_string(pairs.size()) + " sentence pairs fit " +
                                   "max_length " + std::to_string(options_.max_length) +
                                   " (expected at least num_shards = " +
                                   std::to_string(options_.num_shards) + ")");
  }
}

const std::vector<std::vector<std::vector<uint32_t>>>& BatchGenerator::plan(uint64_t epoch) {
  if (!have_plan_ || planned_epoch_ != epoch) {
    plan_ = plan_epoch(src_lengths_, tgt_lengths_, options_, epoch);
    planned_epoch_ = epoch;
    have_plan_ = true;
  }
  return plan_;
}

size_t BatchGenerator::batches_in_epoch(uint64_t epoch) { return plan(epoch).size(); }

uint64_t BatchGenerator::epochs_done() {
  return position_.epoch + (position_.batch >= plan(position_.epoch).size() ? 1 : 0);
}

Batch BatchGenerator::next() {
  if (position_.batch >= plan(position_.epoch).size()) {
    position_ = {position_.epoch + 1, 0};
  }
  const auto& steps = plan(position_.epoch);
  const auto& indices = steps[position_.batch++][static_cast<size_t>(options_.shard)];
  Batch b = make_batch(kept_, indices);
  for (auto& id : b.ids) id = original_index_[id];
  return b;
}

void BatchGenerator::restore(const BatchPosition& position) {
  const size_t n = plan(position.epoch).size();
  if (position.batch > n) {
    throw InputError("batch position", "batch " + std::to_string(position.batch) +
                                           " of epoch " + std::to_string(position.epoch) +
                                           " (expected <= " + std::to_string(n) +
                                           " batches in that epoch)");
  }
  position_ = position;
}

}  // namespace sl
