#pragma once
#include <cstdint>
#include <vector>

namespace sl {

struct BatchOptions {
  int64_t max_tokens = 4096;  // target tokens per batch including padding: B * T
  int max_length = 128;       // pairs with a side longer than this (with EOS) are dropped
  int maxi_batch = 100;       // batches' worth of sentences, per shard, sorted together
  uint64_t seed = 1;
  int num_shards = 1;  // nodes in distributed training
  int shard = 0;       // this node
};

// Throws InputError naming the offending field.
void validate(const BatchOptions& options);

// The batches of one epoch for every shard, as sentence indices. Pure function of
// (lengths with EOS, options minus shard, epoch), so every node computes the same plan and a
// resumed run the same batches:
//  1. permute all sentences by (seed, epoch);
//  2. cut the permutation into maxi-batches of maxi_batch * num_shards batches' worth of
//     sentences (the last one takes the remainder);
//  3. sort each maxi-batch by (target length, source length, index); deal it out in rows of
//     num_shards neighbouring sentences, one per shard (rotating which shard gets the
//     longest), and cut the rows into steps with rows * longest target <= max_tokens;
//  4. shuffle the steps by (seed, epoch).
// Result: steps[k][n] is the batch of shard n at step k. Every shard has the same number of
// steps and, within a step, nearly the same token count; each sentence is in exactly one
// batch. When a maxi-batch's size is not a multiple of num_shards, its shortest row is
// incomplete; a shard's batch can then be empty only if max_tokens holds a single row of the
// shortest sentences (a budget of about one sentence per batch).
std::vector<std::vector<std::vector<uint32_t>>> plan_epoch(
    const std::vector<int32_t>& src_lengths, const std::vector<int32_t>& tgt_lengths,
    const BatchOptions& options, uint64_t epoch);

}  // namespace sl
