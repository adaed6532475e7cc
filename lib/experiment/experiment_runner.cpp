#include "experiment/experiment_runner.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "common/input_error.h"
#include "data/parallel_corpus.h"
#include "distributed/simulated_cluster.h"
#include "tensor/device.h"
#include "train/node_trainer.h"
#include "train/stop_signal.h"

namespace sl {

namespace {

std::vector<TokenPair> encode_first(const ParallelCorpus& c, const SentencePieceVocab& v,
                                    int64_t limit, std::vector<std::string>* refs) {
  ParallelCorpus part = c;
  if (limit > 0 && static_cast<size_t>(limit) < part.size()) {
    part.source.resize(static_cast<size_t>(limit));
    part.target.resize(static_cast<size_t>(limit));
  }
  if (refs) *refs = part.target;
  return encode_corpus(part, v);
}

// Ranks sharing this host's cores, from the launcher's environment (MPICH's hydra, Open MPI,
// Slurm); without one, assume all ranks are here (mpiexec -n 4 on one machine).
int ranks_on_this_host(int world) {
  for (const char* v : {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"})
    if (const char* s = std::getenv(v))
      if (int n = std::atoi(s); n > 0) return n;
  return world;
}

}  // namespace

LoadedData load_training_data(const DataConfig& d, Communicator* comm, int max_length) {
  const std::string prefix = d.corpus + "/";
  ParallelCorpus train = ParallelCorpus::read_split(prefix + "train", d.src, d.tgt);
  ParallelCorpus dev = ParallelCorpus::read_split(prefix + "dev", d.src, d.tgt);
  ParallelCorpus test = ParallelCorpus::read_split(prefix + "test", d.src, d.tgt);
  if (d.train_sentences > 0 && static_cast<size_t>(d.train_sentences) < train.size()) {
    train.source.resize(static_cast<size_t>(d.train_sentences));
    train.target.resize(static_cast<size_t>(d.train_sentences));
  }
  LoadedData out;
  // With MPI, one rank trains the SentencePiece model; the others then load the cached file.
  const bool first = !comm || comm->rank() == 0;
  if (first)
    out.vocab = std::make_unique<SentencePieceVocab>(
        SentencePieceVocab::load_or_train(train, d.spm, d.spm_dir));
  if (comm) comm->barrier();
  if (!first)
    out.vocab = std::make_unique<SentencePieceVocab>(
        SentencePieceVocab::load_or_train(train, d.spm, d.spm_dir));
  out.data.vocab = out.vocab.get();
  out.data.train = encode_corpus(train, *out.vocab);
  out.data.dev = encode_first(dev, *out.vocab, d.dev_sentences, &out.data.dev_refs);
  out.data.test = encode_first(test, *out.vocab, d.test_sentences, &out.data.test_refs);
  out.dropped = count_too_long(out.data.train, max_length);
  out.data.dropped_pairs = out.dropped.pairs;
  if (out.dropped.pairs > 0 && first)
    std::fprintf(stderr,
                 "%s: %lld of %zu training pairs have a side longer than data.max_length = %d tokens "
                 "and are not trained on (the first is line %lld of %strain.%s/.%s)\n",
                 d.corpus.c_str(), static_cast<long long>(out.dropped.pairs), out.data.train.size(),
                 max_length, static_cast<long long>(out.dropped.first_line), prefix.c_str(),
                 d.src.c_str(), d.tgt.c_str());
  return out;
}

DroppedPairs count_too_long(const std::vector<TokenPair>& pairs, int max_length) {
  DroppedPairs out;
  if (max_length <= 0) return out;
  for (size_t i = 0; i < pairs.size(); ++i) {
    // As BatchGenerator counts: the length with EOS.
    if (static_cast<int64_t>(pairs[i].src.size()) + 1 > max_length ||
        static_cast<int64_t>(pairs[i].tgt.size()) + 1 > max_length) {
      if (out.pairs == 0) out.first_line = static_cast<int64_t>(i) + 1;
      ++out.pairs;
    }
  }
  return out;
}

void configure_threads(const ClusterConfig& c, int nodes_on_this_host) {
  int threads = c.blas_threads;
  if (threads == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, cores / std::max(1, nodes_on_this_host));
  }
  set_blas_threads(threads);
}

// What both launchers do before training: the data (with a communicator, the vocabulary is
// trained by rank 0 only), the stop-signal handlers, BLAS threads for `nodes_here` nodes
// sharing this host's cores.
static LoadedData prepare_run(ExperimentConfig& e, Communicator* comm, int nodes_here) {
  LoadedData loaded = load_training_data(e.data, comm, e.job.batching.max_length);
  e.job.stop_requested = &install_stop_signal_handlers();
  configure_threads(e.cluster, nodes_here);
  return loaded;
}

NodeOutcome run_experiment_sim(ExperimentConfig& e, const std::function<void()>& data_loaded) {
  if (e.cluster.backend != "sim")
    throw InputError(e.file + ":/cluster/backend",
                     "expected \"sim\" for an in-process run (use mpiexec for \"mpi\")");
  LoadedData loaded = prepare_run(e, nullptr, e.cluster.nodes);
  if (data_loaded) data_loaded();
  e.job.data = &loaded.data;
  NodeOutcome outcome;
  SimulatedCluster::run(e.cluster.nodes, [&](Communicator& comm) {
    // Thread-local BLAS settings follow the process setting in OpenBLAS; set once above.
    try {
      comm.set_collective_timeout(e.cluster.collective_timeout_s);
      NodeOutcome o = run_training_node(e.job, comm);
      if (comm.rank() == 0) outcome = o;
    } catch (const InputError&) {
      throw;  // names its file already, and keeps exit code 2
    } catch (const CollectiveTimeout&) {
      throw;  // names the nodes that never arrived, not the one that noticed
    } catch (const std::exception& x) {
      // As under MPI ("rank R: fatal: ..."), the message names the node that failed.
      throw std::runtime_error("node " + std::to_string(comm.rank()) + ": " + x.what());
    }
  });
  return outcome;
}

NodeOutcome run_experiment_on(ExperimentConfig& e, Communicator& comm,
                              const std::function<void()>& data_loaded) {
  if (comm.size() != e.cluster.nodes)
    throw InputError(e.file + ":/cluster/nodes",
                     "config asks for " + std::to_string(e.cluster.nodes) +
                         " nodes but the MPI job has " + std::to_string(comm.size()) +
                         " ranks (mpiexec -n " + std::to_string(e.cluster.nodes) + ")");
  LoadedData loaded = prepare_run(e, &comm, ranks_on_this_host(comm.size()));
  e.job.data = &loaded.data;
  // From here on, not while rank 0 alone trained the SentencePiece model above.
  comm.set_collective_timeout(e.cluster.collective_timeout_s);
  if (data_loaded) {
    data_loaded();
    comm.barrier();  // no rank writes into the results directory before it is cleared
  }
  return run_training_node(e.job, comm);
}

}  // namespace sl
