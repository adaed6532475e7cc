#pragma once
#include <functional>
#include <string>

#include "distributed/communicator.h"
#include "experiment/experiment_config.h"

namespace sl {

// Loads the corpus and the SentencePiece model (training it once if needed), then trains on
// the configured cluster: cluster.backend "sim" runs N nodes as threads here; "mpi" runs this
// process as one rank of `comm` (which must have cluster.nodes ranks).
// Returns the run's outcome as rank 0 saw it. `data_loaded` (if given) runs once the data have
// loaded and before any node starts (with MPI: on every rank, then a barrier), e.g. to clear
// the results directory only when the run is sure to start.
NodeOutcome run_experiment_sim(ExperimentConfig& e, const std::function<void()>& data_loaded = {});
NodeOutcome run_experiment_on(ExperimentConfig& e, Communicator& comm,
                              const std::function<void()>& data_loaded = {});

// The encoded corpus (train/dev/test) with its vocabulary. `comm` may be null (one process);
// with MPI, rank 0 trains the SentencePiece model and the others wait for it.
// Training pairs with a side longer than data.max_length tokens (with EOS): BatchGenerator
// leaves them out. first_line is the 1-based corpus line of the first one (0: none).
struct DroppedPairs {
  int64_t pairs = 0, first_line = 0;
};
DroppedPairs count_too_long(const std::vector<TokenPair>& pairs, int max_length);

// With max_length > 0, the pairs it drops are counted (`dropped`) and reported on stderr.
struct LoadedData {
  std::unique_ptr<SentencePieceVocab> vocab;
  TrainingData data;
  DroppedPairs dropped;
};
LoadedData load_training_data(const DataConfig& d, Communicator* comm, int max_length = 0);

// BLAS threads per node: 1 when several nodes share this machine's cores.
void configure_threads(const ClusterConfig& c, int nodes_on_this_host);

}  // namespace sl
