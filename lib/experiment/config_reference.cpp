#include "experiment/config_reference.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/config_object.h"
#include "distributed/ring_network_model.h"
#include "experiment/config_loader.h"
#include "experiment/experiment_config.h"

namespace sl {

namespace {

struct Meaning {
  const char* text;
  const char* default_override = nullptr;  // when the validator's default is set later in code
};

// One line per key the validator reads. Keep in the order of the sections below.
const std::map<std::string, Meaning>& meanings() {
  static const std::map<std::string, Meaning> m = {
      {"/name",
       {"experiment name (required, no '/'); results go to results/<name>/ unless output.dir is "
        "given",
        "(required)"}},
      {"/seed",
       {"seed of everything random: initialization, batching order, dropout masks, SentencePiece"}},
      {"/device", {"where tensors live; \"cuda\" needs a build with the CUDA backend and a GPU"}},
      {"/data", {"the corpus, vocabulary and batching"}},
      {"/data/corpus",
       {"directory holding {train,dev,test}.{src,tgt}, plain or gzip (detected by content)"}},
      {"/data/src", {"source language suffix of the corpus files (train.<src>)"}},
      {"/data/tgt", {"target language suffix of the corpus files (train.<tgt>)"}},
      {"/data/vocab_size",
       {"size of the joint SentencePiece vocabulary (the model's vocab_size follows it)"}},
      {"/data/spm_seed",
       {"seed of the SentencePiece training (default: the experiment's seed); pin it to share "
        "one vocabulary across seeds",
        "(the experiment's seed)"}},
      {"/data/normalization", {"SentencePiece normalization rule"}},
      {"/data/spm_dir",
       {"where the SentencePiece model is cached (default cache/spm/<corpus dir name>)"}},
      {"/data/train_sentences", {"use only the first N training pairs; 0 = all"}},
      {"/data/dev_sentences", {"use only the first N dev pairs; 0 = all"}},
      {"/data/test_sentences", {"use only the first N test pairs; 0 = all"}},
      {"/data/batch_tokens",
       {"target tokens per batch and node, padding included (rows x longest target); at least data.max_length"}},
      {"/data/max_length",
       {"pairs with a side longer than this many tokens (with EOS) are not trained on; their "
        "number is reported"}},
      {"/data/maxi_batch",
       {"batches' worth of sentences sorted by length together (Marian's maxi-batch)"}},
      {"/model", {"the network; the keys below depend on model.type"}},
      {"/model/type",
       {"architecture: Transformer base-like or the Marian-style RNN (GRU) encoder-decoder"}},
      {"/model/vocab_size",
       {"set from data.vocab_size; when given it must equal it", "data.vocab_size"}},
      {"/model/d_model", {"transformer: model (embedding) dimension"}},
      {"/model/heads", {"transformer: attention heads; must divide d_model"}},
      {"/model/ff", {"transformer: feed-forward inner dimension"}},
      {"/model/encoder_layers", {"transformer: encoder layers"}},
      {"/model/decoder_layers", {"transformer: decoder layers"}},
      {"/model/dropout",
       {"dropout probability on embeddings and sublayer outputs (rnn: on embeddings and states)"}},
      {"/model/attention_dropout", {"transformer: dropout on attention weights"}},
      {"/model/relu_dropout", {"transformer: dropout inside the feed-forward block"}},
      {"/model/label_smoothing", {"label smoothing of the cross-entropy loss"}},
      {"/model/tied_embeddings",
       {"share embeddings: true/\"all\" (source, target, output), \"output\" (target and output), "
        "false/\"none\""}},
      {"/model/emb_init",
       {"initialisation of the embedding tables (and tied output): \"normal\" N(0, dim^-1/2), rows "
        "of norm ~1 (default), \"unit\" N(0, 1) as PyTorch's nn.Embedding (rows of norm "
        "~sqrt(dim)), or \"glorot\" uniform (shrinks with the vocabulary size)"}},
      {"/model/qkv_init",
       {"transformer: initialise q, k, v as three Glorot [d, d] matrices (\"separate\", default) "
        "or as one fused Glorot [d, 3d] matrix like PyTorch's nn.MultiheadAttention (\"fused\": "
        "weights 1/sqrt(2) smaller)"}},
      {"/model/norm",
       {"transformer: layer norm after (\"post\", the original) or before (\"pre\") each "
        "sublayer"}},
      {"/model/max_length", {"transformer: longest sequence the positional encoding covers"}},
      {"/model/emb_dim", {"rnn: embedding dimension"}},
      {"/model/enc_dim", {"rnn: encoder GRU state dimension (per direction)"}},
      {"/model/dec_dim", {"rnn: decoder GRU state dimension"}},
      {"/model/enc_layers", {"rnn: encoder layers"}},
      {"/model/deep_output",
       {"rnn: the layer before the (tied) output projection: \"tanh\" (Nematus, default) or "
        "\"linear\" (Bahdanau et al.'s textbook form)"}},
      {"/model/emb_scale",
       {"rnn: \"sqrt_dim\" multiplies the source and target-input embedding lookups by "
        "sqrt(emb_dim), as the Transformer does, so a GRU without layer norm sees unit-size "
        "inputs from the start; \"none\" (default) uses the rows as they are"}},
      {"/train", {"the optimization schedule, logging and checkpoints"}},
      {"/train/max_steps", {"training steps (updates) to run; the run ends there"}},
      {"/train/max_epochs",
       {"also end after this many passes over the training data; 0 = no limit"}},
      {"/train/lr", {"peak learning rate of Adam"}},
      {"/train/warmup", {"steps of linear learning-rate warm-up"}},
      {"/train/decay",
       {"after warm-up: inverse square root decay, constant, or linear decay to 0 at max_steps"}},
      {"/train/adam", {"Adam's hyper-parameters"}},
      {"/train/adam/beta1", {"Adam beta1 (first-moment decay)"}},
      {"/train/adam/beta2", {"Adam beta2 (second-moment decay)"}},
      {"/train/adam/eps", {"Adam epsilon"}},
      {"/train/optimizer",
       {"the update rule on U_n: \"adam\"; \"sign\": theta -= lr sign(U) (DeMo's); \"sgd\": "
        "theta -= lr U",
        "\"adam\" (\"sign\" for distributed.method \"demo\")"}},
      {"/train/weight_decay",
       {"decoupled weight decay lambda of \"sign\" and \"sgd\": theta *= 1 - lr lambda before the "
        "step, as DeMo's reference applies it; must be 0 with \"adam\""}},
      {"/train/clip_norm", {"clip the global gradient norm to this; 0 = no clipping"}},
      {"/train/log_every", {"write a log.jsonl line every N steps"}},
      {"/train/checkpoint_every",
       {"commit a resumable checkpoint every N steps; 0 = only at the end or on a stop"}},
      {"/train/keep_checkpoints", {"committed checkpoints kept (older ones are deleted)"}},
      {"/train/on_nonfinite",
       {"a NaN/Inf loss or gradient: skip the step (counted in summary.json), or stop with exit "
        "code 3"}},
      {"/train/time_limit_s",
       {"end training normally after this many seconds of wall time; 0 = no limit"}},
      {"/valid", {"validation on the dev set (and the test set at the end)"}},
      {"/valid/every", {"validate every N steps (and at the end); 0 = only at the end"}},
      {"/valid/final_every",
       {"validate every N steps in the last final_fraction of max_steps too (so steps-to-target "
        "resolve finely where curves flatten); 0 = off"}},
      {"/valid/final_fraction",
       {"the share of max_steps at the end where final_every applies (e.g. 0.3: the last 30%)"}},
      {"/valid/max_sentences", {"dev sentences decoded for BLEU/chrF at each validation"}},
      {"/valid/batch_sentences", {"sentences per decoding batch"}},
      {"/valid/batch_tokens", {"tokens per batch for the dev cross-entropy"}},
      {"/valid/decode", {"decoding of dev and test translations"}},
      {"/valid/decode/beam_size", {"beam size; 1 = greedy", "1"}},
      {"/valid/decode/length_alpha", {"length normalization: scores are divided by length^alpha"}},
      {"/valid/decode/max_length_factor", {"longest output: factor x source length + offset"}},
      {"/valid/decode/max_length_offset", {"longest output: factor x source length + offset"}},
      {"/valid/test_at_end",
       {"decode the test set with the best-dev-BLEU parameters at the end (test.hyp, "
        "summary.json)"}},
      {"/cluster", {"where the nodes run"}},
      {"/cluster/backend",
       {"\"sim\": N nodes as threads of one process; \"mpi\": one MPI rank per node (mpiexec -n "
        "N)"}},
      {"/cluster/nodes",
       {"number of nodes (workers) N; under MPI it must equal the number of ranks"}},
      {"/cluster/blas_threads",
       {"BLAS threads per node; 0 = the cores of this host shared among its nodes"}},
      {"/cluster/collective_timeout_s",
       {"seconds a collective of training (steps, validation, checkpoints) may wait for the other "
        "nodes; past it every node exits (code 1) naming the nodes that never arrived, and the "
        "last committed checkpoint resumes. 0 = wait forever (then a waiting MPI rank keeps a "
        "core busy). Set it well above the slowest validation or checkpoint write"}},
      {"/distributed", {"how nodes exchange gradients (PAPER.md)"}},
      {"/distributed/method",
       {"\"dense\": all-reduce of full gradients; \"sparse\": gradient dropping (top-k with error "
        "feedback); \"fedavg\": local steps and model averaging; after the paper "
        "(BEYOND.md): \"powersgd\" (low-rank, Vogels et al. 2019), \"diloco\" (local "
        "Adam + outer Nesterov every average_every steps, Douillard et al. 2023), \"demo\" (DCT "
        "top-k of a decoupled momentum, sign update, Peng et al. 2024)"}},
      {"/distributed/combiner",
       {"sparse only: how the local gradient is combined with the sparse global one (\"partial\" = "
        "the paper's sparse+local)"}},
      {"/distributed/drop_ratio",
       {"sparse: fraction of gradient values dropped (rho; 0.99 keeps the top 1%)"}},
      {"/distributed/threshold",
       {"sparse: top-k threshold found exactly, or estimated from a sample"}},
      {"/distributed/sample_size",
       {"sparse, threshold \"sampled\": values sampled to estimate the threshold"}},
      {"/distributed/drop_warmup_steps",
       {"sparse: steps over which the drop ratio ramps up to drop_ratio"}},
      {"/distributed/average_every",
       {"average parameters across nodes every N steps; 0 = never (the default of dense, powersgd, "
        "demo and sparse-only, whose copies stay identical), 500 otherwise; for diloco the inner "
        "steps H between outer steps (a period longer than train.max_steps never comes: a warning)",
        "0 or 500 (by method)"}},
      {"/distributed/average_moments", {"also average Adam's moments when averaging parameters"}},
      {"/distributed/encoding", {"sparse and demo: wire format of (index, value) pairs"}},
      {"/distributed/powersgd",
       {"method powersgd (rank 4 as BEYOND.md; the other defaults PyTorch powerSGD_hook's); set "
        "under another method, an error"}},
      {"/distributed/powersgd/rank", {"powersgd: rank r of the P (n x r) and Q (m x r) factors"}},
      {"/distributed/powersgd/warmup_steps",
       {"powersgd: steps of dense all-reduce before compression starts (start_powerSGD_iter)"}},
      {"/distributed/powersgd/warm_start",
       {"powersgd: reuse the last step's Q (else a new N(0, 1) draw every step)"}},
      {"/distributed/powersgd/min_compression_rate",
       {"powersgd: an n x m tensor is compressed iff rate x r(n + m) < nm, else all-reduced dense "
        "(vectors always); 1 is BEYOND.md's rule, PyTorch's hook uses 2"}},
      {"/distributed/powersgd/random_seed",
       {"powersgd: seed of Q's N(0, 1) draw, the same on every node"}},
      {"/distributed/diloco", {"method diloco: the outer optimizer (DiLoCo's defaults); set under another method, an error"}},
      {"/distributed/diloco/outer_lr",
       {"diloco: outer learning rate; 1 without momentum is fedavg, bit for bit"}},
      {"/distributed/diloco/outer_momentum", {"diloco: outer momentum mu"}},
      {"/distributed/diloco/nesterov",
       {"diloco: Nesterov momentum (DiLoCo's) or heavy-ball; SGD with dampening 0 as PyTorch's"}},
      {"/distributed/demo", {"method demo (DeMo's defaults; the update rule is train.optimizer); set under another "
        "method, an error"}},
      {"/distributed/demo/beta", {"demo: decay of the local momentum m = beta m + g"}},
      {"/distributed/demo/chunk",
       {"demo: DCT chunk target s; a dimension is cut in chunks of its largest divisor <= s, as "
        "DeMo's code does"}},
      {"/distributed/demo/topk",
       {"demo: DCT coefficients sent per chunk (a chunk with fewer, h x w < topk, sends all of them)"}},
      {"/distributed/network",
       {"modeled network for the modeled times: a preset name or {bandwidth_gbps, latency_us, "
        "efficiency, overhead_us} (the presets are PAPER.md's model: efficiency 1, overhead 0)",
        "\"10gbe\""}},
      {"/distributed/network/bandwidth_gbps", {"custom network: bandwidth in Gbit/s (required)"}},
      {"/distributed/network/latency_us", {"custom network: latency per message in microseconds"}},
      {"/distributed/network/efficiency",
       {"custom network: eta, the share of the bandwidth that carries payload (measured on a "
        "real link: results/clock/validation.md)"}},
      {"/distributed/network/overhead_us",
       {"custom network: o, software overhead per message hop in microseconds, added to the "
        "latency (results/clock/validation.md)"}},
      {"/output", {"where results go"}},
      {"/output/dir", {"results directory; --output-dir overrides it", "\"results/<name>\""}},
  };
  return m;
}

// The samples the validator is run on: together they reach every key.
struct Sample {
  const char* model;  // the "/model" section this sample documents, or nullptr
  const char* json;
};
const Sample kSamples[] = {
    {"transformer", R"({"name": "x"})"},
    {"rnn", R"({"name": "x", "model": {"type": "rnn"},
               "distributed": {"method": "sparse", "combiner": "partial",
                               "network": {"bandwidth_gbps": 10}}})"},
    {nullptr, R"({"name": "x", "distributed": {"method": "fedavg"}})"},
};

std::string md_escape(std::string s) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else
      o += c;
  }
  return o;
}

std::string dotted(const std::string& pointer) {
  std::string s = pointer.substr(1);
  for (char& c : s)
    if (c == '/') c = '.';
  return s;
}

void table(std::ostringstream& out, const std::vector<ConfigKeyInfo>& keys) {
  out << "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const ConfigKeyInfo& k : keys) {
    const Meaning& m = meanings().at(k.pointer);
    std::string def = m.default_override          ? m.default_override
                      : k.required                ? "(required)"
                      : k.default_value.is_null() ? ""
                                                  : k.default_value.dump();
    if (!m.default_override && k.default_value.is_number_float()) {  // 0.1f, not 0.10000000149
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.7g", k.default_value.get<double>());
      def = buf;
    }
    if (k.type == "object" && !m.default_override) def = "";
    std::string type = k.type == "any" ? "string or object" : k.type;
    std::string allowed = k.allowed;
    if (k.pointer == "/model/tied_embeddings") {  // true/false are read raw, the names by choice()
      type = "boolean or string";
      allowed = "true | false | " + allowed;
    }
    if (k.pointer == "/distributed/network") {  // a preset name (read raw) or an object
      type = "string or object";
      allowed.clear();
      for (const std::string& p : network_preset_names()) allowed += "\"" + p + "\" | ";
      allowed += "{bandwidth_gbps, latency_us, efficiency, overhead_us}";
    }
    out << "| `" << dotted(k.pointer) << "` | " << type << " | "
        << (def.empty() ? "" : "`" + md_escape(def) + "`") << " | " << md_escape(allowed) << " | "
        << md_escape(m.text) << " |\n";
  }
  out << "\n";
}

}  // namespace

std::string config_reference_markdown() {
  std::map<std::string, ConfigKeyInfo> all;                    // everything but /model
  std::map<std::string, std::vector<ConfigKeyInfo>> by_model;  // /model keys per model type
  std::set<std::string> seen;
  for (const Sample& s : kSamples) {
    ConfigSchemaRecorder rec;
    ConfigSchemaRecorder* old = set_config_schema_recorder(&rec);
    try {
      parse_experiment_config(parse_strict_json(s.json, "sample.json"), "sample.json", "");
    } catch (...) {
      set_config_schema_recorder(old);
      throw;
    }
    set_config_schema_recorder(old);
    for (auto& [p, k] : rec.keys) {
      if (!meanings().count(p)) throw std::logic_error("config reference: no meaning for " + p);
      seen.insert(p);
      const bool model_key = p.rfind("/model/", 0) == 0;
      if (model_key && s.model) by_model[s.model].push_back(k);
      if (!model_key) {
        auto it = all.find(p);
        if (it == all.end() || (it->second.type == "any" && k.type != "any")) all[p] = k;
      }
    }
  }
  for (auto& [p, m] : meanings())
    if (!seen.count(p))
      throw std::logic_error("config reference: " + p +
                             " is documented but not read by the validator");

  // Sections in the order of a config file; keys in the order they appear in meanings(),
  // which groups nested objects under their parent.
  std::ostringstream out;
  out << "# Config reference\n\n"
         "<!-- Generated by `run-experiment --config-reference`; do not edit. The test\n"
         "     config_reference_doc fails when this file differs from the binary's output. -->\n\n"
         "An experiment config is one JSON object. Every key is optional unless marked required;\n"
         "an unknown key, a key given twice, a value of the wrong type or out of range is an "
         "error\n"
         "naming the file and the JSON pointer (exit code 2). `\"extends\": \"base.json\"` (a "
         "path\n"
         "relative to the file) reads a base config first and merges this file's keys into it,\n"
         "object by object. `--set key.path=VALUE` overrides one value after that.\n"
         "Objects nest at most 64 levels.\n\n"
         "Types: `integer` also accepts a whole number written as a float (`1e3`); ranges are\n"
         "inclusive unless written with `)`.\n\n";
  const std::vector<std::string> sections = {"",       "/data",    "/model",       "/train",
                                             "/valid", "/cluster", "/distributed", "/output"};
  auto in_section = [](const std::string& p, const std::string& sec) {
    if (sec.empty()) return p.find('/', 1) == std::string::npos;
    return p.rfind(sec + "/", 0) == 0;
  };
  auto order = [&](std::vector<ConfigKeyInfo> v) {
    std::vector<std::string> names;
    for (auto& [p, m] : meanings()) names.push_back(p);
    std::vector<ConfigKeyInfo> out_keys;
    // meanings() is a std::map (alphabetical by pointer), which keeps nested keys together.
    for (const std::string& p : names)
      for (const ConfigKeyInfo& k : v)
        if (k.pointer == p) out_keys.push_back(k);
    return out_keys;
  };
  for (const std::string& sec : sections) {
    if (sec == "/model") {
      out << "## model\n\n" << md_escape(meanings().at("/model").text) << ".\n\n";
      for (const char* type : {"transformer", "rnn"}) {
        out << "### model.type = \"" << type << "\"\n\n";
        table(out, order(by_model[type]));
      }
      continue;
    }
    std::vector<ConfigKeyInfo> keys;
    for (auto& [p, k] : all)
      if (in_section(p, sec)) keys.push_back(k);
    out << "## " << (sec.empty() ? "top level" : sec.substr(1)) << "\n\n";
    if (!sec.empty()) out << md_escape(meanings().at(sec).text) << ".\n\n";
    table(out, order(keys));
  }
  return out.str();
}

}  // namespace sl
