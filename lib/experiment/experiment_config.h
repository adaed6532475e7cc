#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "data/batch_plan.h"
#include "data/sentencepiece_vocab.h"
#include "train/training_job.h"

namespace sl {

// The "data" section.
struct DataConfig {
  std::string corpus = "data/tiny-de-en";  // directory with {train,dev,test}.{src,tgt}[.gz]
  std::string src = "de", tgt = "en";
  std::string spm_dir;                      // default: cache/spm/<corpus dir name>
  SentencePieceOptions spm;                 // vocab_size, normalization
  int64_t train_sentences = 0;              // use the first N training pairs; 0 = all
  int64_t dev_sentences = 0, test_sentences = 0;
};

// The "cluster" section.
struct ClusterConfig {
  std::string backend = "sim";  // "sim": N nodes as threads of this process; "mpi": one rank each
  int nodes = 1;
  int blas_threads = 0;  // per node; 0 = all cores for one node, 1 when several share them
  double collective_timeout_s = 0;  // Communicator::set_collective_timeout; 0 = wait forever
};

// A whole experiment: what `run-experiment --config` runs.
struct ExperimentConfig {
  std::string file;  // where it came from (for error messages)
  std::string name;
  DataConfig data;
  ClusterConfig cluster;
  TrainingJob job;  // model, train, valid, distributed, batching, seed, device, output dir
};

// Validates everything (InputError naming "<file>:<json pointer>"); `output_dir` overrides
// output.dir when not empty.
ExperimentConfig parse_experiment_config(const nlohmann::json& j, const std::string& file,
                                         const std::string& output_dir);

// An experiment's or a suite's name becomes a results folder: one path component (non-empty,
// no '/', not . or ..), so no name reaches outside the folder it is put in.
bool is_folder_name(const std::string& name);

}  // namespace sl
