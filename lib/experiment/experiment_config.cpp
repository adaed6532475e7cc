#include "experiment/experiment_config.h"

#include <sys/stat.h>

#include "common/input_error.h"

namespace sl {

namespace {

std::string basename_of(std::string p) {
  while (!p.empty() && p.back() == '/') p.pop_back();
  const auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

DataConfig parse_data(ConfigObject c, BatchOptions& batching, uint64_t spm_seed) {
  DataConfig d;
  d.spm.seed = spm_seed;
  d.corpus = c.string("corpus", d.corpus);
  d.src = c.string("src", d.src);
  d.tgt = c.string("tgt", d.tgt);
  d.spm.vocab_size = static_cast<int>(c.integer("vocab_size", 8000, 16, 1 << 20));
  d.spm.normalization = c.choice("normalization", d.spm.normalization, {"nmt_nfkc", "identity"});
  d.spm_dir = c.string("spm_dir", "cache/spm/" + basename_of(d.corpus));
  struct stat st;
  if (::stat(d.spm_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw InputError(c.where("spm_dir"), "\"" + d.spm_dir + "\" is a file; expected a folder (the SentencePiece model cache)");
  d.train_sentences = c.integer("train_sentences", 0, 0);
  d.dev_sentences = c.integer("dev_sentences", 0, 0);
  d.test_sentences = c.integer("test_sentences", 0, 0);
  batching.max_tokens = c.integer("batch_tokens", batching.max_tokens, 1);
  batching.max_length = static_cast<int>(c.integer("max_length", 100, 2, 100000));
  if (batching.max_tokens < batching.max_length)  // named here, where the file and keys are known
    throw InputError(c.where("batch_tokens"), "is " + std::to_string(batching.max_tokens) +
                                                  "; expected >= data.max_length (" +
                                                  std::to_string(batching.max_length) +
                                                  "): a batch must hold the longest sentence");
  batching.maxi_batch = static_cast<int>(c.integer("maxi_batch", batching.maxi_batch, 1, 100000));
  c.finish();
  return d;
}

ClusterConfig parse_cluster(ConfigObject c) {
  ClusterConfig k;
  k.backend = c.choice("backend", k.backend, {"sim", "mpi"});
  k.nodes = static_cast<int>(c.integer("nodes", k.nodes, 1, 4096));
  k.blas_threads = static_cast<int>(c.integer("blas_threads", k.blas_threads, 0, 256));
  k.collective_timeout_s = c.number("collective_timeout_s", k.collective_timeout_s, 0.0, 1e9);
  c.finish();
  return k;
}

// The update rule a method's source prescribes, used when train.optimizer is not given:
// DeMo's is sign descent (Peng et al. 2024), every other method's here is Adam.
std::string default_optimizer(const DistributedConfig& d) {
  return d.method == Method::DeMo ? "sign" : "adam";
}

}  // namespace

bool is_folder_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

ExperimentConfig parse_experiment_config(const nlohmann::json& j, const std::string& file,
                                         const std::string& output_dir) {
  ExperimentConfig e;
  e.file = file;
  ConfigObject root(j, file, "");
  e.name = root.string("name", "");
  if (!is_folder_name(e.name))
    throw InputError(root.where("name"), "expected a non-empty experiment name without '/' (not . or ..)");
  TrainingJob& job = e.job;
  job.name = e.name;
  job.seed = static_cast<uint64_t>(root.integer("seed", 1, 0));
  job.device = root.choice("device", "cpu", {"cpu", "cuda"});
  job.batching.seed = job.seed;
  ConfigObject data = root.object("data");
  // SentencePiece follows the run's seed unless data.spm_seed pins it (one vocabulary for
  // every seed of a suite, so the seed spread is training alone).
  e.data.spm.seed = static_cast<uint64_t>(data.integer("spm_seed", static_cast<int64_t>(job.seed), 0));
  e.data = parse_data(std::move(data), job.batching, e.data.spm.seed);

  ConfigObject model = root.object("model");
  // The vocabulary is joint and sized by data.vocab_size; the model takes it from there.
  nlohmann::json model_json = root.raw("model");
  if (model_json.is_null()) model_json = nlohmann::json::object();
  if (model_json.contains("vocab_size") && model_json["vocab_size"] != e.data.spm.vocab_size)
    throw InputError(model.where("vocab_size"), "must equal /data/vocab_size (" +
                                                    std::to_string(e.data.spm.vocab_size) + ")");
  model_json["vocab_size"] = e.data.spm.vocab_size;
  ConfigObject model_full(model_json, file, "/model");
  job.model = parse_model_config(model_full);

  ConfigObject train = root.object("train");
  const bool optimizer_given = train.has("optimizer");
  job.train = parse_train_config(train);
  ConfigObject valid = root.object("valid");
  job.valid = parse_valid_config(valid);
  e.cluster = parse_cluster(root.object("cluster"));
  ConfigObject dist = root.object("distributed");
  job.distributed = DistributedConfig::parse(dist);
  if (!optimizer_given) job.train.optimizer = default_optimizer(job.distributed);
  if (job.train.weight_decay > 0 && job.train.optimizer == "adam")
    throw InputError(train.where("weight_decay"),
                     "decoupled weight decay needs optimizer \"sign\" or \"sgd\", got optimizer "
                     "\"adam\" (set train.optimizer, or weight_decay 0)");
  ConfigObject out = root.object("output");
  job.results_dir = out.string("dir", "results/" + e.name);
  out.finish();
  if (!output_dir.empty()) job.results_dir = output_dir;
  root.finish();
  validate(job.batching);
  // A 1-node sparse run is allowed: it is the single-node gradient-dropping ablation.

  // The resolved config: every default filled in, as it will be run.
  job.resolved_config = {
      {"name", e.name},
      {"seed", job.seed},
      {"device", job.device},
      {"data",
       {{"corpus", e.data.corpus}, {"src", e.data.src}, {"tgt", e.data.tgt},
        {"vocab_size", e.data.spm.vocab_size}, {"spm_seed", e.data.spm.seed},
        {"normalization", e.data.spm.normalization},
        {"spm_dir", e.data.spm_dir}, {"train_sentences", e.data.train_sentences},
        {"dev_sentences", e.data.dev_sentences}, {"test_sentences", e.data.test_sentences},
        {"batch_tokens", job.batching.max_tokens}, {"max_length", job.batching.max_length},
        {"maxi_batch", job.batching.maxi_batch}}},
      {"model", to_json(job.model)},
      {"train",
       {{"max_steps", job.train.max_steps}, {"max_epochs", job.train.max_epochs},
        {"lr", job.train.schedule.lr}, {"warmup", job.train.schedule.warmup},
        {"decay", job.train.schedule.decay},
        {"optimizer", job.train.optimizer}, {"weight_decay", job.train.weight_decay},
        {"adam", {{"beta1", json_float(job.train.adam.beta1)}, {"beta2", json_float(job.train.adam.beta2)},
                  {"eps", json_float(job.train.adam.eps)}}},
        {"clip_norm", job.train.clip_norm}, {"log_every", job.train.log_every},
        {"checkpoint_every", job.train.checkpoint_every},
        {"keep_checkpoints", job.train.keep_checkpoints},
        {"on_nonfinite", job.train.on_nonfinite}, {"time_limit_s", job.train.time_limit_s}}},
      {"valid",
       {{"every", job.valid.every}, {"final_every", job.valid.final_every},
        {"final_fraction", job.valid.final_fraction}, {"max_sentences", job.valid.max_sentences},
        {"batch_sentences", job.valid.batch_sentences}, {"batch_tokens", job.valid.batch_tokens},
        {"test_at_end", job.valid.test_at_end},
        {"decode", {{"beam_size", job.valid.decode.beam_size}, {"length_alpha", json_float(job.valid.decode.length_alpha)},
                    {"max_length_factor", json_float(job.valid.decode.max_length_factor)},
                    {"max_length_offset", job.valid.decode.max_length_offset}}}}},
      {"cluster", {{"backend", e.cluster.backend}, {"nodes", e.cluster.nodes}, {"blas_threads", e.cluster.blas_threads},
                   {"collective_timeout_s", e.cluster.collective_timeout_s}}},
      {"distributed", job.distributed.to_json()},
      {"output", {{"dir", job.results_dir}}}};
  return e;
}

}  // namespace sl
