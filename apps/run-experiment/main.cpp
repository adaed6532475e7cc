// run-experiment: trains and evaluates one experiment (--config) or a list of them
// (--suite) on the simulated cluster or as one rank of an MPI job.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "../common/app_main.h"
#include "common/atomic_file.h"
#include "common/crash_handler.h"
#include "common/dir_lock.h"
#include "common/input_error.h"
#include "experiment/config_loader.h"
#include "experiment/config_reference.h"
#include "experiment/experiment_config.h"
#include "experiment/experiment_runner.h"
#include "suite.h"
#include "tensor/cpu/blas_library.h"
#include "train/kernel_record.h"
#include "train/node_checkpoint.h"
#include "train/results_dir.h"
#ifdef SL_HAVE_MPI
#include "distributed/mpi_communicator.h"
#endif

namespace {

struct Options {
  std::string config, suite, output_dir, output_root = "results";
  std::vector<std::string> overrides, only;
  bool resume = false, overwrite = false, dry_run = false, no_progress = false, reference = false;
  bool profile = false, skip_busy = false;
};

// Exit codes (README.md, --help): 0 the run completed, or stopped on a signal or its time
// limit with a checkpoint (continue with --resume); 1 a fatal error; 2 bad input (config,
// flags, corpus, checkpoint) or the results directory is in use by another run; 3 stopped
// because of a non-finite loss or gradient (train.on_nonfinite = stop): resuming would
// repeat it, so scripts/slurm never requeues it. A crash dies of its signal (128 + N).
constexpr int kNonFiniteExitCode = 3;

// The one reason string the trainer gives a non-finite stop (lib/train/node_trainer.cpp).
bool stopped_nonfinite(const sl::NodeOutcome& r) { return r.reason.rfind("non-finite", 0) == 0; }
// Every node agreed on the stop, so every MPI rank sees the same reason.
bool stopped_by_signal(const sl::NodeOutcome& r) { return r.reason.rfind("stop signal", 0) == 0; }

int exit_code_of(const sl::NodeOutcome& r) {
  if (r.complete) return 0;
  if (stopped_nonfinite(r)) return kNonFiniteExitCode;
  return r.reason.empty() ? 1 : 0;
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// Ranks of the MPI job this process was started in (1 when not under a launcher).
int launcher_world_size() {
  for (const char* v : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE"})
    if (const char* s = std::getenv(v)) return std::max(1, std::atoi(s));
  return 1;
}

// This process's rank in the MPI job it was started in (0 when not under a launcher).
int launcher_rank() {
  for (const char* v : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return std::max(0, std::atoi(s));
  return 0;
}

// A suite skips a complete experiment; a lock its run left when it was killed after it
// completed (before it could release the lock) is removed here, or no later run would.
// A lock some live process holds is left alone.
void remove_stale_lock(const std::string& dir) {
  if (launcher_rank() != 0 || !exists(dir + "/" + sl::kLockFileName)) return;
  try {
    sl::DirLock::acquire(dir).release();  // takes over the dead holder's lock, with a message
  } catch (const sl::InputError&) {
  }
}

sl::ExperimentConfig load_experiment(const std::string& file, const std::vector<std::string>& sets,
                                     const std::string& output_dir,
                                     const std::vector<std::string>* labels = nullptr) {
  nlohmann::json j = sl::load_config_file(file);
  std::vector<sl::OverrideOrigin> origins;
  sl::apply_overrides(j, sets, &origins, labels);
  for (const sl::OverrideOrigin& origin : origins)
    if (const std::string note = sl::describe_reset(origin); !note.empty() && launcher_rank() == 0)
      std::fprintf(stderr, "run-experiment: note: %s\n", note.c_str());
  try {
    return sl::parse_experiment_config(j, file, output_dir);
  } catch (const sl::InputError& e) {
    sl::rethrow_blaming_overrides(e, file, origins);
  }
}

// "transformer (vocab_size=500, d_model=32, ...)" from a resolved config's "model" section.
std::string describe_model(const nlohmann::json& m) {
  if (!m.is_object()) return "unknown";
  std::string s = m.value("type", "?") + " (";
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (it.key() == "type") continue;
    s += (first ? "" : ", ") + it.key() + "=" + it.value().dump();
    first = false;
  }
  return s + ")";
}

// A checkpoint of another model names only fingerprints; say which model each side is,
// from the results directory's config.json (written by the run that made the checkpoint).
void explain_model_mismatch(const sl::InputError& e, const sl::ExperimentConfig& ex,
                            const nlohmann::json& old_config) {
  const std::string what = e.what();
  if (what.find("model_fingerprint") == std::string::npos) return;
  const nlohmann::json mine = ex.job.resolved_config.value("model", nlohmann::json());
  const nlohmann::json theirs = old_config.is_object() ? old_config.value("model", nlohmann::json()) : nlohmann::json();
  std::string diff;
  if (theirs.is_object() && mine.is_object())
    for (auto it = mine.begin(); it != mine.end(); ++it)
      if (!theirs.contains(it.key()) || theirs[it.key()] != it.value())
        diff += (diff.empty() ? "" : ", ") + it.key() + " " +
                (theirs.contains(it.key()) ? theirs[it.key()].dump() : "(absent)") + " -> " + it.value().dump();
  std::string msg = what.substr(std::min(what.size(), e.where().size() + 2)) +
                    "; the checkpoint is of the model " +
                    (theirs.is_object() ? describe_model(theirs) + " (its config.json)" : std::string("of unknown config"))
                    + ", this config asks for " + describe_model(mine);
  if (!diff.empty()) msg += "; they differ in " + diff;
  throw sl::InputError(e.where(), msg + " (expected the same model to --resume; use a new --output-dir)");
}

nlohmann::json read_json_or_null(const std::string& path) {
  if (!exists(path)) return nullptr;
  try {
    nlohmann::json j = nlohmann::json::parse(sl::read_file(path), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// Rank 0 (or the one process of a simulated cluster), before training: lock the results
// directory for the run's lifetime, then say what the run needs of it. --overwrite removes
// what an earlier run wrote, so the result equals a run into an empty directory; --resume
// removes temporary files a kill left behind, and when no checkpoint was committed yet it
// starts from step 0 like --overwrite (the old log lines would otherwise stay). The removal
// (`clear`) waits until the data have loaded: a run that fails on its corpus or vocabulary
// leaves the earlier run's files as they were.
struct PreparedDir {
  sl::DirLock lock;
  bool clear = false;
  bool created = false;  // the folder did not exist before this run
  std::string dir;
  // Runs once the data have loaded (run_experiment_*'s data_loaded).
  void clear_if_asked() const {
    if (clear) sl::ResultsDir(dir).remove_run_files();
  }
  // A run refused on its input leaves no empty folder behind (rmdir removes only an empty one).
  void drop_if_created_empty() {
    if (!created) return;
    lock.release();
    ::rmdir(dir.c_str());
  }
};
PreparedDir prepare_results_dir(const sl::ExperimentConfig& e, bool resume, bool overwrite) {
  const std::string& dir = e.job.results_dir;
  const bool created = !exists(dir);
  PreparedDir p{sl::DirLock::acquire(dir), /*clear=*/false, created, dir};
  sl::ResultsDir rd(dir);
  if (!resume && !overwrite && rd.has_run_files())
    throw sl::InputError(dir, "already holds a run; pass --resume to continue it or --overwrite to start again");
  if (resume) {
    const std::vector<std::string> orphans = rd.remove_orphan_temp_files();
    if (!orphans.empty())
      std::fprintf(stderr, "[%s] removed %zu temporary file(s) left by a killed run (%s%s)\n", e.name.c_str(),
                   orphans.size(), orphans[0].c_str(), orphans.size() > 1 ? ", ..." : "");
    if (sl::CheckpointStore(dir + "/checkpoints", "").latest().empty()) {
      if (rd.has_run_files())
        std::fprintf(stderr, "[%s] --resume: %s holds no committed checkpoint; starting from step 0 "
                     "(the earlier run's logs are removed once the data have loaded)\n", e.name.c_str(), dir.c_str());
      p.clear = true;
    }
  } else if (overwrite) {
    p.clear = true;
  }
  return p;
}

// A collective timeout ends every node; say what is left to continue from.
std::runtime_error explain_timeout(const sl::CollectiveTimeout& x, const std::string& dir) {
  std::string latest;
  try {
    latest = sl::CheckpointStore(dir + "/checkpoints", "").latest();
  } catch (const sl::InputError& damaged) {
    return std::runtime_error(std::string(x.what()) + "; " + damaged.what());
  }
  return std::runtime_error(
      std::string(x.what()) + "; " +
      (latest.empty()
           ? "no checkpoint was committed yet: --resume starts again from step 0"
           : "the last committed checkpoint is " + latest + ": continue from it with --resume"));
}

// Fault injection for tests/reliability/crash.sh: SL_FAULT_CRASH=segv|stack|bus|abort makes
// rank SL_FAULT_CRASH_RANK (default 0) crash like a real bug would, before training.
void maybe_inject_crash(int rank) {
  const char* kind = std::getenv("SL_FAULT_CRASH");
  if (!kind) return;
  const char* r = std::getenv("SL_FAULT_CRASH_RANK");
  if ((r ? std::atoi(r) : 0) != rank) return;
  const std::string k = kind;
  std::fprintf(stderr, "rank %d: injecting a crash (SL_FAULT_CRASH=%s)\n", rank, kind);
  std::fflush(stderr);
  if (k == "segv") {
    volatile int* p = nullptr;
    *p = 1;
  } else if (k == "stack") {
    struct Deep {
      static int down(volatile int n) {
        volatile char pad[4096];
        pad[0] = static_cast<char>(n);
        if (n < 0) return 0;  // never: n only grows (keeps -Winfinite-recursion quiet)
        return down(n + 1) + pad[0];
      }
    };
    std::printf("%d\n", Deep::down(0));
  } else if (k == "bus") {
    std::raise(SIGBUS);
  } else if (k == "abort") {
    std::abort();
  }
}

#ifdef SL_HAVE_MPI
// Each rank learns the pid and host of the others, so a crash or an MPI error can name the
// rank that died (where it ran on this host) instead of a launcher's guess; rank 0 also learns
// which BLAS kernels each rank runs, and warns when they differ (kernel_record.h).
void register_rank_identity(sl::MpiCommunicator& comm) {
  char host[64] = {0};
  ::gethostname(host, sizeof host - 1);
  struct Id {
    long pid;
    char host[64];
    char blas[128];
  } me{static_cast<long>(::getpid()), {0}, {0}};
  std::memcpy(me.host, host, sizeof host);
  const std::string blas = sl::kernel_segment(0).value("blas", "");
  std::strncpy(me.blas, blas.c_str(), sizeof me.blas - 1);
  std::vector<uint8_t> mine(reinterpret_cast<uint8_t*>(&me), reinterpret_cast<uint8_t*>(&me) + sizeof me);
  std::vector<std::vector<uint8_t>> all;
  comm.allgather_bytes(mine, all);
  std::vector<sl::PeerProcess> peers;
  std::vector<std::string> kernels, hosts;
  for (int r = 0; r < comm.size(); ++r) {
    if (all[r].size() != sizeof(Id)) continue;
    Id id;
    std::memcpy(&id, all[r].data(), sizeof id);
    kernels.emplace_back(id.blas, strnlen(id.blas, sizeof id.blas));
    hosts.emplace_back(id.host, strnlen(id.host, sizeof id.host));
    if (r != comm.rank()) peers.push_back({r, id.pid, std::strncmp(id.host, host, sizeof host) == 0});
  }
  if (comm.rank() == 0)
    if (const std::string m = sl::rank_kernel_mismatch(kernels, hosts); !m.empty())
      std::fprintf(stderr, "run-experiment: warning: %s\n", m.c_str());
  sl::set_peer_processes(peers);
  sl::set_crash_context("rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) +
                        " (pid " + std::to_string(::getpid()) + " on " + host + ")");
  sl::install_crash_handlers("run-experiment");  // again: MPI_Init may have installed its own
}
#endif

// Runs one experiment to completion (or to a stop); returns the process exit code and, when
// `outcome` is given, how the run ended.
int run_one(sl::ExperimentConfig& e, const Options& o, bool resume, sl::NodeOutcome* outcome = nullptr) {
  sl::NodeOutcome ignored;
  sl::NodeOutcome& out = outcome ? *outcome : ignored;
  e.job.resume = resume;
  e.job.progress_on_tty = !o.no_progress;
  e.job.profile = o.profile;
  const std::string dir = e.job.results_dir;
  if (!resume && !o.overwrite && sl::ResultsDir::holds_run_files(dir))
    throw sl::InputError(dir, "already holds a run; pass --resume to continue it or --overwrite to start again");
  if (o.dry_run) {
    std::cout << e.job.resolved_config.dump(2) << "\n";
    return 0;
  }
  const nlohmann::json old_config = resume ? read_json_or_null(dir + "/config.json") : nlohmann::json();
  if (e.cluster.backend == "mpi") {
#ifdef SL_HAVE_MPI
    for (const char* v : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}) {
      if (const char* r = std::getenv(v); r && launcher_world_size() > 1) {
        sl::start_death_watcher(std::atoi(r), launcher_world_size());
        break;
      }
    }
    return sl::run_mpi_main([&](sl::MpiCommunicator& comm) {
      register_rank_identity(comm);
      PreparedDir prepared;  // one rank holds the lock
      try {
        if (comm.rank() == 0) prepared = prepare_results_dir(e, resume, o.overwrite);
        comm.barrier();
        maybe_inject_crash(comm.rank());
        out = sl::run_experiment_on(e, comm, [&] { prepared.clear_if_asked(); });
        return exit_code_of(out);
      } catch (const sl::InputError& x) {
        sl::note_failure_reported();  // run_mpi_main prints it
        prepared.drop_if_created_empty();
        explain_model_mismatch(x, e, old_config);
        throw;
      } catch (const sl::CollectiveTimeout& x) {
        sl::note_failure_reported();  // run_mpi_main prints it
        throw explain_timeout(x, dir);
      } catch (const std::exception& x) {
        // A collective failed because another rank died: name that rank where we can know it.
        sl::note_failure_reported();  // run_mpi_main prints it
        const std::string dead = sl::describe_dead_peers();
        if (!dead.empty()) throw std::runtime_error(dead + " (here: " + x.what() + ")");
        throw;
      }
    });
#else
    throw sl::InputError(e.file + ":/cluster/backend", "this build has no MPI (configure with -DSL_MPI=ON)");
#endif
  }
  const int world = launcher_world_size();
  if (world > 1)
    throw sl::InputError(e.file + ":/cluster/backend",
                         "started as one of " + std::to_string(world) +
                             " MPI ranks but the backend is \"sim\" (add --set cluster.backend=mpi)");
  PreparedDir prepared = prepare_results_dir(e, resume, o.overwrite);
  maybe_inject_crash(0);
  try {
    out = sl::run_experiment_sim(e, [&] { prepared.clear_if_asked(); });
    return exit_code_of(out);
  } catch (const sl::InputError& x) {
    prepared.drop_if_created_empty();
    explain_model_mismatch(x, e, old_config);
    throw;
  } catch (const sl::CollectiveTimeout& x) {
    throw explain_timeout(x, dir);
  }
}

int run(const Options& o) {
  if (!o.config.empty()) {
    sl::ExperimentConfig e = load_experiment(o.config, o.overrides, o.output_dir);
    return run_one(e, o, o.resume);
  }
  sl::Suite s = sl::load_suite(o.suite);
  for (const std::string& want : o.only) {  // a typo would otherwise run nothing and exit 0
    if (std::none_of(s.experiments.begin(), s.experiments.end(),
                     [&](const sl::SuiteEntry& x) { return x.name == want; })) {
      std::string names;
      for (const sl::SuiteEntry& x : s.experiments) names += (names.empty() ? "" : ", ") + x.name;
      throw sl::InputError(o.suite, "--only " + want + ": no experiment of that name (it has: " + names + ")");
    }
  }
  int rc = 0;
  for (const sl::SuiteEntry& x : s.experiments) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), x.name) == o.only.end()) continue;
    std::vector<std::string> sets = x.overrides;
    sets.insert(sets.end(), o.overrides.begin(), o.overrides.end());
    sets.push_back("name=" + x.name);
    if (x.nodes > 0) sets.push_back("cluster.nodes=" + std::to_string(x.nodes));
    const std::string dir = o.output_root + "/" + s.name + "/" + x.name;
    std::vector<std::string> labels;
    for (const std::string& v : x.overrides) labels.push_back(o.suite + ": experiment \"" + x.name + "\": set " + v);
    for (const std::string& v : o.overrides) labels.push_back("--set " + v);
    labels.push_back(o.suite + ": experiment \"" + x.name + "\": its name");
    labels.push_back(o.suite + ": experiment \"" + x.name + "\": nodes");
    sl::ExperimentConfig e = load_experiment(x.config, sets, dir, &labels);
    if (exists(dir + "/summary.json") && !o.overwrite) {
      nlohmann::json sum = nlohmann::json::parse(sl::read_file(dir + "/summary.json"), nullptr, false);
      if (!sum.is_discarded() && sum.value("status", "") == "complete") {
        remove_stale_lock(dir);
        std::fprintf(stderr, "[%s] complete, skipped (%s/summary.json)\n", x.name.c_str(), dir.c_str());
        const nlohmann::json stored = read_json_or_null(dir + "/config.json");
        std::string diff;
        for (const std::string& p : sl::differing_settings(stored, e.job.resolved_config))
          diff += (diff.empty() ? "" : ", ") + p + " " + stored.at(nlohmann::json::json_pointer(p)).dump() +
                  " -> " + e.job.resolved_config.at(nlohmann::json::json_pointer(p)).dump();
        if (!diff.empty())
          std::fprintf(stderr,
                       "[%s] warning: its results were made with other settings than the suite's now (%s); "
                       "pass --overwrite or remove %s to run it again\n",
                       x.name.c_str(), diff.c_str(), dir.c_str());
        continue;
      }
      // A run stopped on a non-finite loss or gradient is a result too (it diverged). Resuming
      // it would replay the same updates bit for bit into the same stop, on every rerun.
      const std::string reason = sum.is_discarded() ? "" : sum.value("reason", "");
      if (reason.rfind("non-finite", 0) == 0) {
        remove_stale_lock(dir);
        std::fprintf(stderr,
                     "[%s] stopped on a non-finite value earlier (%s), skipped: resuming would repeat it; "
                     "pass --overwrite or remove %s to run it again\n",
                     x.name.c_str(), reason.c_str(), dir.c_str());
        continue;
      }
    }
    std::fprintf(stderr, "[%s] %s: %s, %d node(s), %s\n", s.name.c_str(), x.name.c_str(), x.config.c_str(),
                 e.cluster.nodes, e.job.distributed.method_name().c_str());
    // A suite always continues what it finds: interrupted experiments resume.
    sl::NodeOutcome outcome;
    try {
      rc = std::max(rc, run_one(e, o, /*resume=*/!o.overwrite, &outcome));
    } catch (const sl::DirBusyError& busy) {
      if (!o.skip_busy) throw;
      std::fprintf(stderr, "[%s] busy, skipped (%s)\n", x.name.c_str(), busy.what());
      continue;
    }
    if (stopped_by_signal(outcome)) {
      // SIGTERM / SIGUSR1 / Ctrl-C stop the whole suite, not only the experiment it reached.
      std::fprintf(stderr, "[%s] stopped at %s (%s); run the same command again to resume\n", s.name.c_str(),
                   x.name.c_str(), outcome.reason.c_str());
      break;
    }
  }
  return rc;
}

// The version and which BLAS computes the CPU products (a generic core costs 3-4x).
int print_version() {
  std::cout << "sparselocal " << SL_VERSION << "\n";
  const std::string blas = sl::blas::describe();  // throws when the BLAS cannot be loaded
  std::cout << "BLAS: " << blas << "\nBLAS file: " << sl::blas::info().path << "\n";
  if (!sl::blas::info().warning.empty())
    std::cerr << "run-experiment: warning: " << sl::blas::info().warning << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Crashes print one line and die, never hang (installed again after MPI_Init).
  sl::install_crash_handlers("run-experiment");
  CLI::App app{
      "run-experiment: train and evaluate NMT models with dense, sparse (gradient dropping) and\n"
      "sparse+local gradient exchange (Aji, Heafield, Bogoychev 2019) on 1..N nodes.\n"
      "Results go to results/<name>/ (config.json, log.jsonl, valid.jsonl, summary.json).\n\n"
      "Examples:\n"
      "  run-experiment --config configs/tiny/sparse-partial.json\n"
      "  run-experiment --config configs/tiny/dense.json --set train.max_steps=50 --set cluster.nodes=2\n"
      "  mpiexec -n 4 run-experiment --config configs/tiny/dense.json --set cluster.backend=mpi\n"
      "  run-experiment --suite configs/demo/suite.json\n\n"
      "Every config key, with its type, default and allowed values: --config-reference\n"
      "(the same text as docs/CONFIG.md).\n\n"
      "Exit codes: 0 complete, or stopped by a signal / time limit with a checkpoint (continue\n"
      "with --resume); 1 fatal error; 2 bad input, or the results directory is in use by another\n"
      "run; 3 stopped on a non-finite loss or gradient (train.on_nonfinite = stop); 128+N killed\n"
      "by signal N (a crash prints one line naming the signal and the rank)."};
  Options o;
  auto* config = app.add_option("--config,-c", o.config, "experiment config (JSON)")->check(CLI::ExistingFile);
  auto* reference = app.add_flag("--config-reference", o.reference,
                                 "print every config key (type, default, allowed values, meaning) as Markdown and exit");
  reference->excludes(config);
  auto* suite = app.add_option("--suite", o.suite, "suite file (JSON): a list of experiments")->check(CLI::ExistingFile);
  config->excludes(suite);
  app.add_option(
      "--set", o.overrides,
      "override a config value: KEY.PATH=VALUE (JSON value or plain string), repeatable.\n"
      "An object VALUE replaces the whole object: --set distributed={} resets every\n"
      "distributed key to its default (a note names the keys it reset); to change one\n"
      "key and keep the others, set it alone (--set distributed.drop_ratio=0.9)");
  app.add_option("--output-dir,-o", o.output_dir, "results directory of this experiment (default output.dir)")
      ->excludes(suite);
  // The suite-only options need --suite: with --config they would be dropped without a word.
  app.add_option("--output-root", o.output_root, "suites: results go to ROOT/<suite>/<experiment>")
      ->capture_default_str()
      ->needs(suite);
  app.add_option("--only", o.only, "suites: run only these experiments (repeatable)")->needs(suite);
  app.add_flag("--skip-busy", o.skip_busy,
               "suites on the simulated cluster: skip (not fail on) an experiment whose results "
               "directory another live run holds, so several processes can work through one "
               "suite side by side")
      ->needs(suite);
  app.add_flag("--resume", o.resume, "continue from the last complete checkpoint in the results directory");
  app.add_flag("--overwrite", o.overwrite, "start again even if the results directory holds a run");
  app.add_flag("--dry-run", o.dry_run, "print the resolved config and exit");
  app.add_flag("--no-progress", o.no_progress, "no progress line on a terminal");
  app.add_flag("--profile", o.profile,
               "at the end, print node 0's kernel time per update by category and kernel "
               "(validation excluded; adds a little overhead)");
  bool version = false;
  app.add_flag("--version", version,
               "print the version and the CPU BLAS in use (library, version, kernels, CPU) and exit");
  const int rc = sl::app::parse(app, argc, argv, [&] {
    if (o.config.empty() && o.suite.empty() && !o.reference && !version)
      throw CLI::RequiredError("--config or --suite");
  });
  if (rc >= 0) return rc;
  if (o.reference) {
    std::cout << sl::config_reference_markdown();
    return 0;
  }
  // Under mpiexec every rank reads the same config and reports the same bad input, before
  // MPI starts: each says which rank it is, as errors after the start do (run_mpi_main).
  const std::string who = launcher_world_size() > 1
                              ? "rank " + std::to_string(launcher_rank()) + ": "
                              : std::string("run-experiment: ");
  if (version) return sl::app::run(who + "error: ", who + "fatal: ", print_version);
  return sl::app::run(who + "error: ", who + "fatal: ", [&] { return run(o); });
}
