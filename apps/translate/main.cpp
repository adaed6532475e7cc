// translate: decodes source sentences (one per line, stdin or a file) with a model saved by
// run-experiment (results/<experiment>/best-model.ckpt holds the parameters, the model
// config and the SentencePiece model).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>

#include "../common/app_main.h"
#include "common/atomic_file.h"
#include "common/config_object.h"
#include "common/input_error.h"
#include "data/sentencepiece_vocab.h"
#include "data/text_lines.h"
#include "data/vocab.h"
#include "eval/decoding/translate_sentences.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "train/best_model.h"
#include "train/checkpoint_file.h"

namespace {

struct Options {
  std::string model, input = "-", vocab, device = "cpu";
  int beam = 4, batch = 64;
  float alpha = 0.6f;
  bool strict = false;
};

// One sentence per line; invalid UTF-8 or a NUL byte is an InputError naming file:line and
// the byte (as the corpus reader and `bleu` do), before anything is translated.
std::vector<std::string> read_sources(const std::string& path) {
  if (path == "-")
    return sl::split_text_lines(std::string(std::istreambuf_iterator<char>(std::cin), {}),
                                "<stdin>");
  return sl::split_text_lines(sl::read_file(path), path);
}

int run(const Options& o) {
  sl::CheckpointFile ckpt = sl::read_checkpoint_file(o.model);
  if (!ckpt.meta.contains("model"))
    throw sl::InputError(o.model, "not a model file written by run-experiment (no model config)");
  sl::ConfigObject mc(ckpt.meta["model"], o.model, "/meta/model");
  sl::ModelConfig cfg = sl::parse_model_config(mc);
  sl::SentencePieceVocab vocab =
      o.vocab.empty() ? sl::best_model_vocab(ckpt, o.model) : sl::SentencePieceVocab::load(o.vocab);
  if (vocab.size() != cfg.vocab_size)
    throw sl::InputError(vocab.path(), "has " + std::to_string(vocab.size()) +
                                           " pieces, the model expects " +
                                           std::to_string(cfg.vocab_size));
  sl::Device& dev = sl::device_by_name(o.device, "--device");
  std::unique_ptr<sl::Seq2SeqModel> model = sl::make_model(cfg);
  sl::ParameterArena arena(dev);
  model->declare(arena);
  arena.allocate();
  const std::vector<float>& params = ckpt.array("params", o.model);
  if (params.size() != arena.size())
    throw sl::InputError(o.model, "has " + std::to_string(params.size()) +
                                      " parameters, the model needs " +
                                      std::to_string(arena.size()));
  dev.from_host(arena.values().f32(), params.data(), params.size() * sizeof(float));

  // A line longer than the model accepts is not translated: its output line stays empty (so
  // the output keeps one line per input line), with a warning naming it; --strict makes it
  // an input error before anything is written.
  const std::string input_name = o.input == "-" ? "<stdin>" : o.input;
  const int limit = model->max_source_length();
  std::vector<std::vector<int32_t>> sources;
  std::vector<size_t> rows;  // input line (0-based) of each source decoded
  std::vector<size_t> too_long;
  const std::vector<std::string> lines = read_sources(o.input);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<int32_t> ids = vocab.encode(lines[i]);
    ids.push_back(sl::vocab::kEos);  // sources are trained with EOS
    if (static_cast<int64_t>(ids.size()) > limit) {
      const std::string what = "has " + std::to_string(ids.size()) +
                               " tokens with EOS, longer than the model's max_length " +
                               std::to_string(limit);
      if (o.strict)
        throw sl::InputError(
            input_name + ":" + std::to_string(i + 1),
            what + " (expected at most that; without --strict it would be left untranslated)");
      std::fprintf(stderr, "translate: warning: %s:%zu: %s; its output line is left empty\n",
                   input_name.c_str(), i + 1, what.c_str());
      too_long.push_back(i);
      continue;
    }
    sources.push_back(std::move(ids));
    rows.push_back(i);
  }
  sl::DecodeOptions d;
  d.beam_size = o.beam;
  d.length_alpha = o.alpha;
  std::vector<std::string> out(lines.size());
  const std::vector<sl::Hypothesis> hyps =
      sl::translate_sentences(*model, arena, sources, d, o.batch);
  for (size_t k = 0; k < hyps.size(); ++k) out[rows[k]] = vocab.decode(hyps[k].tokens);
  for (const std::string& line : out) std::cout << line << "\n";
  std::cout.flush();
  if (!too_long.empty()) {
    std::string which;
    for (size_t k = 0; k < too_long.size() && k < 10; ++k)
      which += (k ? ", " : "") + std::to_string(too_long[k] + 1);
    if (too_long.size() > 10) which += ", ...";
    std::fprintf(
        stderr,
        "translate: %zu of %zu line(s) were longer than max_length %d and left untranslated "
        "(empty output lines): line(s) %s of %s\n",
        too_long.size(), lines.size(), limit, which.c_str(), input_name.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "translate: decode sentences with a trained sparselocal model.\n\n"
      "  translate --model results/small-transformer/best-model.ckpt < source.de > out.en\n\n"
      "Writes one output line per input line. The input must be UTF-8 without NUL bytes\n"
      "(else exit code 2 naming the line and byte, before anything is written). A line\n"
      "longer than the model accepts (a Transformer's model.max_length tokens with EOS)\n"
      "is not translated: its output line is empty, a warning names it, and a summary\n"
      "counts such lines at the end (exit code 0); with --strict it is an error instead\n"
      "(exit code 2, nothing written). The SentencePiece model is read from the\n"
      "checkpoint, so it translates from any directory.\n\n"
      "Exit codes: 0 done; 1 fatal error; 2 bad input (flags, model file, input text)."};
  Options o;
  app.add_option("--model,-m", o.model, "best-model.ckpt written by run-experiment")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--input,-i", o.input, "source sentences, one per line ('-' = stdin)")
      ->capture_default_str();
  app.add_option("--vocab", o.vocab,
                 "SentencePiece model (default: the one stored in the model file)");
  app.add_option("--device", o.device, "cpu or cuda")->capture_default_str();
  app.add_option("--beam-size,-b", o.beam, "beam size (1 = greedy)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--length-alpha", o.alpha, "length normalisation: score / length^alpha")
      ->check(CLI::Validator(
          [](std::string& s) {  // the config's decode.length_alpha range; NaN too is refused
            const double v = std::strtod(s.c_str(), nullptr);
            return v >= 0.0 && v <= 10.0 ? std::string() : "expected a number from 0 to 10, got " + s;
          },
          "0 to 10"))
      ->capture_default_str();
  app.add_option("--batch-sentences", o.batch, "sentences decoded together")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_flag("--strict", o.strict,
               "a line longer than the model accepts is an error (exit code 2, nothing written) "
               "instead of an empty output line with a warning");
  if (const int rc = sl::app::parse(app, argc, argv); rc >= 0) return rc;
  return sl::app::run("translate: error: ", "translate: fatal: ", [&] { return run(o); });
}
