#include "train/node_checkpoint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "train/checkpoint_file.h"

namespace sl {

namespace {

std::vector<float> to_vector(const Tensor& t) { return t.to_host(); }

void from_vector(const Tensor& t, const std::vector<float>& v, const std::string& path,
                 const std::string& what) {
  if (static_cast<int64_t>(v.size()) != t.numel())
    throw InputError(path, what + " has " + std::to_string(v.size()) + " values, expected " +
                               std::to_string(t.numel()));
  t.device().from_host(t.f32(), v.data(), v.size() * sizeof(float));
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void remove_tree(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      ::unlink((dir + "/" + e->d_name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

std::string node_file(const std::string& step_dir, int rank) {
  return step_dir + "/node-" + std::to_string(rank) + ".ckpt";
}

}  // namespace

std::string model_fingerprint(const ParameterArena& arena) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  };
  for (int i = 0; i < arena.count(); ++i) mix(arena.name(i) + arena.shape(i).str() + ";");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string CheckpointStore::step_dir_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
  return buf;
}

void CheckpointStore::save_node(int64_t step, int rank, int nodes, const NodeState& s) const {
  const std::string sd = dir_ + "/" + step_dir_name(step);
  make_dirs(sd);
  CheckpointFile f;
  const BatchPosition pos = s.batches->state();
  f.meta = {{"step", step},
            {"rank", rank},
            {"nodes", nodes},
            {"model_fingerprint", fingerprint_},
            {"method", s.strategy->config().method_name()},
            {"data_epoch", pos.epoch},
            {"data_batch", pos.batch}};
  f.meta.update(s.optimizer->state_meta());  // Adam: "adam_steps"
  f.arrays.emplace_back("params", to_vector(s.arena->values()));
  for (const auto& [name, t] : s.optimizer->state_arrays())
    f.arrays.emplace_back(name, to_vector(t));
  for (const StateBuffer& b : s.strategy->state())  // sparse: "residual"
    f.arrays.emplace_back(b.name, std::vector<float>(b.data, b.data + b.size));
  write_checkpoint_file(node_file(sd, rank), f);
}

// The step-* directories under `dir`, oldest first; with committed_only, those holding run.json
// (committed, or committed but for `latest`).
static std::vector<std::string> step_dirs(const std::string& dir, bool committed_only) {
  std::vector<std::string> steps;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (!std::strncmp(e->d_name, "step-", 5) &&
          (!committed_only || exists(dir + "/" + e->d_name + "/run.json")))
        steps.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::string CheckpointStore::commit(int64_t step, const nlohmann::json& run_meta,
                                    int64_t keep) const {
  const std::string name = step_dir_name(step);
  write_file_atomic(dir_ + "/" + name + "/run.json", run_meta.dump(2) + "\n");
  write_file_atomic(dir_ + "/latest", name + "\n");
  // Keep the newest `keep` committed step directories.
  const std::vector<std::string> steps = step_dirs(dir_, /*committed_only=*/false);
  for (size_t i = 0; i + static_cast<size_t>(keep) < steps.size(); ++i)
    if (steps[i] != name) remove_tree(dir_ + "/" + steps[i]);
  return dir_ + "/" + name;
}

std::string CheckpointStore::latest() const {
  const std::string p = dir_ + "/latest";
  const std::vector<std::string> committed = step_dirs(dir_, /*committed_only=*/true);
  if (!exists(p)) {
    // A kill between a first checkpoint's run.json and `latest`: run.json is written only
    // after every node's file, so that step directory is whole.
    return committed.empty() ? "" : dir_ + "/" + committed.back();
  }
  std::string name = read_file(p);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  if (!name.empty() && name.find('/') == std::string::npos &&
      std::find(committed.begin(), committed.end(), name) != committed.end())
    return dir_ + "/" + name;
  // `latest` is written atomically and names a directory commit() keeps: this one was damaged
  // by hand or by the disk. Refuse rather than start again and delete the checkpoints.
  std::string have;
  for (const std::string& s : committed) have += (have.empty() ? "" : ", ") + s;
  throw InputError(p, (name.empty() ? std::string("is empty") : "names \"" + name + "\", which holds no run.json") +
                          "; expected the name of a committed step directory (here: " +
                          (have.empty() ? std::string("none") : have) +
                          "): write one into it, or start again with --overwrite");
}

nlohmann::json CheckpointStore::load_node(const std::string& step_dir, int rank, int nodes,
                                          const NodeState& s) const {
  const std::string path = node_file(step_dir, rank);
  // A resume on another node count: every rank names the count (not "cannot open node-5").
  int have = 0;
  while (exists(node_file(step_dir, have))) ++have;
  if (have != nodes)
    throw InputError(step_dir, "holds the checkpoint files of " + std::to_string(have) +
                                   " node(s), this run has " + std::to_string(nodes) +
                                   (have > 0 ? " (resume with cluster.nodes=" + std::to_string(have) +
                                                   ", or start again with --overwrite)"
                                             : " (a damaged checkpoint: start again with --overwrite)"));
  CheckpointFile f = read_checkpoint_file(path);
  auto expect = [&](const char* key, const nlohmann::json& want) {
    if (!f.meta.contains(key) || f.meta[key] != want)
      throw InputError(path, std::string("checkpoint ") + key + " is " +
                                 (f.meta.contains(key) ? f.meta[key].dump() : "missing") +
                                 ", this run has " + want.dump());
  };
  expect("model_fingerprint", fingerprint_);
  expect("nodes", nodes);
  expect("method", s.strategy->config().method_name());
  from_vector(s.arena->values(), f.array("params", path), path, "params");
  for (const auto& [name, t] : s.optimizer->state_arrays())
    from_vector(t, f.array(name, path), path, name);
  try {
    s.optimizer->restore_meta(f.meta);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path,
                     std::string("checkpoint header lacks the optimizer's state: ") + e.what());
  }
  for (const StateBuffer& b : s.strategy->state()) {
    const std::vector<float>& r = f.array(b.name, path);
    if (r.size() != b.size)
      throw InputError(path, b.name + " has " + std::to_string(r.size()) + " values, expected " +
                                 std::to_string(b.size));
    std::copy(r.begin(), r.end(), b.data);
  }
  s.batches->restore(
      {f.meta.at("data_epoch").get<uint64_t>(), f.meta.at("data_batch").get<uint64_t>()});
  const std::string run_path = step_dir + "/run.json";
  nlohmann::json run = nlohmann::json::parse(read_file(run_path), nullptr, /*allow_exceptions=*/false);
  if (!run.is_object())
    throw InputError(run_path, "is not a JSON object (a damaged checkpoint); resume from another "
                               "step directory by writing its name into checkpoints/latest, or use --overwrite");
  return run;
}

}  // namespace sl
