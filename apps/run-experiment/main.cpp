// run-experiment: trains and evaluates one experiment (--config) or a list of them
// (--suite) on the simulated cluster or as one rank of an MPI job.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "../common/app_main.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "experiment/config_loader.h"
#include "experiment/experiment_config.h"
#include "experiment/experiment_runner.h"
#include "suite.h"
#ifdef SL_HAVE_MPI
#include "distributed/mpi_communicator.h"
#endif

namespace {

struct Options {
  std::string config, suite, output_dir, output_root = "results";
  std::vector<std::string> overrides, only;
  bool resume = false, overwrite = false, dry_run = false, no_progress = false;
};

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

sl::ExperimentConfig load_experiment(const std::string& file, const std::vector<std::string>& sets,
                                     const std::string& output_dir) {
  nlohmann::json j = sl::load_config_file(file);
  sl::apply_overrides(j, sets);
  return sl::parse_experiment_config(j, file, output_dir);
}

// Runs one experiment to completion (or to a stop); returns the process exit code.
int run_one(sl::ExperimentConfig& e, const Options& o, bool resume) {
  e.job.resume = resume;
  e.job.progress_on_tty = !o.no_progress;
  const std::string dir = e.job.results_dir;
  if (!resume && !o.overwrite && exists(dir + "/log.jsonl"))
    throw sl::InputError(dir, "already holds a run; pass --resume to continue it or --overwrite to start again");
  if (o.dry_run) {
    std::cout << e.job.resolved_config.dump(2) << "\n";
    return 0;
  }
  sl::NodeOutcome out;
  if (e.cluster.backend == "mpi") {
#ifdef SL_HAVE_MPI
    return sl::run_mpi_main([&](sl::MpiCommunicator& comm) {
      sl::NodeOutcome r = sl::run_experiment_on(e, comm);
      return r.complete || !r.reason.empty() ? 0 : 1;
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
  out = sl::run_experiment_sim(e);
  return 0;
}

int run(const Options& o) {
  if (!o.config.empty()) {
    sl::ExperimentConfig e = load_experiment(o.config, o.overrides, o.output_dir);
    return run_one(e, o, o.resume);
  }
  sl::Suite s = sl::load_suite(o.suite);
  int rc = 0;
  for (const sl::SuiteEntry& x : s.experiments) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), x.name) == o.only.end()) continue;
    std::vector<std::string> sets = x.overrides;
    sets.insert(sets.end(), o.overrides.begin(), o.overrides.end());
    sets.push_back("name=" + x.name);
    if (x.nodes > 0) sets.push_back("cluster.nodes=" + std::to_string(x.nodes));
    const std::string dir = o.output_root + "/" + s.name + "/" + x.name;
    sl::ExperimentConfig e = load_experiment(x.config, sets, dir);
    if (exists(dir + "/summary.json") && !o.overwrite) {
      nlohmann::json sum = nlohmann::json::parse(sl::read_file(dir + "/summary.json"), nullptr, false);
      if (!sum.is_discarded() && sum.value("status", "") == "complete") {
        std::fprintf(stderr, "[%s] complete, skipped (%s/summary.json)\n", x.name.c_str(), dir.c_str());
        continue;
      }
    }
    std::fprintf(stderr, "[%s] %s: %s, %d node(s), %s\n", s.name.c_str(), x.name.c_str(), x.config.c_str(),
                 e.cluster.nodes, e.job.distributed.method_name().c_str());
    // A suite always continues what it finds: interrupted experiments resume.
    rc = std::max(rc, run_one(e, o, /*resume=*/!o.overwrite));
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "run-experiment: train and evaluate NMT models with dense, sparse (gradient dropping) and\n"
      "sparse+local gradient exchange (Aji, Heafield, Bogoychev 2019) on 1..N nodes.\n"
      "Results go to results/<name>/ (config.json, log.jsonl, valid.jsonl, summary.json).\n\n"
      "Examples:\n"
      "  run-experiment --config configs/tiny/sparse-partial.json\n"
      "  run-experiment --config configs/tiny/dense.json --set train.max_steps=50 --set cluster.nodes=2\n"
      "  mpiexec -n 4 run-experiment --config configs/tiny/dense.json --set cluster.backend=mpi\n"
      "  run-experiment --suite configs/demo/suite.json"};
  Options o;
  auto* config = app.add_option("--config,-c", o.config, "experiment config (JSON)")->check(CLI::ExistingFile);
  auto* suite = app.add_option("--suite", o.suite, "suite file (JSON): a list of experiments")->check(CLI::ExistingFile);
  config->excludes(suite);
  app.add_option("--set", o.overrides,
                 "override a config value: KEY.PATH=VALUE (JSON value or plain string), repeatable");
  app.add_option("--output-dir,-o", o.output_dir, "results directory of this experiment (default output.dir)")
      ->excludes(suite);
  app.add_option("--output-root", o.output_root, "suites: results go to ROOT/<suite>/<experiment>")->capture_default_str();
  app.add_option("--only", o.only, "suites: run only these experiments (repeatable)");
  app.add_flag("--resume", o.resume, "continue from the last complete checkpoint in the results directory");
  app.add_flag("--overwrite", o.overwrite, "start again even if the results directory holds a run");
  app.add_flag("--dry-run", o.dry_run, "print the resolved config and exit");
  app.add_flag("--no-progress", o.no_progress, "no progress line on a terminal");
  const int rc = sl::app::parse(app, argc, argv, [&] {
    if (o.config.empty() && o.suite.empty()) throw CLI::RequiredError("--config or --suite");
  });
  if (rc >= 0) return rc;
  return sl::app::run("run-experiment: error: ", "run-experiment: fatal: ", [&] { return run(o); });
}
