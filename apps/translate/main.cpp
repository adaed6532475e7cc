// translate: decodes source sentences (one per line, stdin or a file) with a model saved by
// run-experiment (results/<experiment>/best-model.ckpt holds the parameters, the model
// config and the SentencePiece model path).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "../common/app_main.h"
#include "common/atomic_file.h"
#include "common/config_object.h"
#include "common/input_error.h"
#include "data/sentencepiece_vocab.h"
#include "data/vocab.h"
#include "eval/decoding/translate_sentences.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "train/checkpoint_file.h"

namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    text = sl::read_file(path);
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int run(const std::string& model_path, const std::string& input, const std::string& vocab_override,
        const std::string& device, int beam, float alpha, int batch) {
  sl::CheckpointFile ckpt = sl::read_checkpoint_file(model_path);
  if (!ckpt.meta.contains("model") || !ckpt.meta.contains("vocab"))
    throw sl::InputError(model_path, "not a model file written by run-experiment (no model config or vocab)");
  sl::ConfigObject mc(ckpt.meta["model"], model_path, "/meta/model");
  sl::ModelConfig cfg = sl::parse_model_config(mc);
  const std::string vocab_path = vocab_override.empty() ? ckpt.meta["vocab"].get<std::string>() : vocab_override;
  sl::SentencePieceVocab vocab = sl::SentencePieceVocab::load(vocab_path);
  if (vocab.size() != cfg.vocab_size)
    throw sl::InputError(vocab_path, "has " + std::to_string(vocab.size()) + " pieces, the model expects " +
                                         std::to_string(cfg.vocab_size));
  sl::Device& dev = sl::device_by_name(device, "--device");
  std::unique_ptr<sl::Seq2SeqModel> model = sl::make_model(cfg);
  sl::ParameterArena arena(dev);
  model->declare(arena);
  arena.allocate();
  const std::vector<float>& params = ckpt.array("params", model_path);
  if (params.size() != arena.size())
    throw sl::InputError(model_path, "has " + std::to_string(params.size()) + " parameters, the model needs " +
                                         std::to_string(arena.size()));
  dev.from_host(arena.values().f32(), params.data(), params.size() * sizeof(float));

  std::vector<std::vector<int32_t>> sources;
  for (const std::string& line : read_lines(input)) {
    std::vector<int32_t> ids = vocab.encode(line);
    ids.push_back(sl::vocab::kEos);  // sources are trained with EOS
    sources.push_back(std::move(ids));
  }
  sl::DecodeOptions o;
  o.beam_size = beam;
  o.length_alpha = alpha;
  for (const sl::Hypothesis& h : sl::translate_sentences(*model, arena, sources, o, batch))
    std::cout << vocab.decode(h.tokens) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"translate: decode sentences with a trained sparselocal model.\n\n"
               "  translate --model results/small-transformer/best-model.ckpt < source.de > out.en"};
  std::string model, input = "-", vocab, device = "cpu";
  int beam = 4, batch = 64;
  float alpha = 0.6f;
  app.add_option("--model,-m", model, "best-model.ckpt written by run-experiment")->required()->check(CLI::ExistingFile);
  app.add_option("--input,-i", input, "source sentences, one per line ('-' = stdin)")->capture_default_str();
  app.add_option("--vocab", vocab, "SentencePiece model (default: the one recorded in the model file)");
  app.add_option("--device", device, "cpu or cuda")->capture_default_str();
  app.add_option("--beam-size,-b", beam, "beam size (1 = greedy)")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--length-alpha", alpha, "length normalisation: score / length^alpha")->capture_default_str();
  app.add_option("--batch-sentences", batch, "sentences decoded together")->check(CLI::Range(1, 4096))->capture_default_str();
  if (const int rc = sl::app::parse(app, argc, argv); rc >= 0) return rc;
  return sl::app::run("translate: error: ", "translate: fatal: ",
                      [&] { return run(model, input, vocab, device, beam, alpha, batch); });
}
