#pragma once
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/batch_plan.h"
#include "data/sentencepiece_vocab.h"
#include "data/token_pair.h"
#include "distributed/distributed_config.h"
#include "models/model_config.h"
#include "train/train_config.h"

namespace sl {

// The encoded corpus, shared read-only by every node of a simulated cluster.
struct TrainingData {
  std::vector<TokenPair> train;
  std::vector<TokenPair> dev, test;              // encoded sources (and targets, for dev CE)
  std::vector<std::string> dev_refs, test_refs;  // raw reference sentences for BLEU
  const SentencePieceVocab* vocab = nullptr;
  // Training pairs with a side longer than batching.max_length tokens: BatchGenerator leaves
  // them out; summary.json reports them ("dropped_pairs").
  int64_t dropped_pairs = 0;
};

// Everything one node needs to train; built by the experiment layer from a config.
struct TrainingJob {
  std::string name;
  uint64_t seed = 1;
  std::string device = "cpu";
  ModelConfig model;
  TrainConfig train;
  ValidConfig valid;
  DistributedConfig distributed;
  BatchOptions batching;  // shard / num_shards are filled per node
  const TrainingData* data = nullptr;
  std::string results_dir;
  bool resume = false;
  bool progress_on_tty = true;
  // run-experiment --profile: node 0 books its kernels' time (ProfilingDevice) and prints
  // the table per update at the end; validation is not profiled.
  bool profile = false;
  nlohmann::json resolved_config;
  // Set by SIGTERM / SIGUSR1 (stop_signal.h): nodes agree to checkpoint and stop.
  const std::atomic<bool>* stop_requested = nullptr;
};

// What a node ends with (rank 0's is the run's).
struct NodeOutcome {
  bool complete = false;
  std::string reason;  // why incomplete: "signal", "time limit", "non-finite", ...
  int64_t steps = 0;
  std::string last_checkpoint;
};

}  // namespace sl
