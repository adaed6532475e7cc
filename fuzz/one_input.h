#pragma once
// What one fuzz input exercises, shared by the libFuzzer targets (fuzz/*_fuzzer.cpp) and the
// regression test that replays fuzz/regressions/ in the normal build
// (tests/reliability/fuzz_regressions_test.cpp). Rejections must be sl::InputError; any
// other exception, a crash, a sanitizer report or a broken invariant (abort) is a bug.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "data/batch.h"
#include "data/text_lines.h"
#include "experiment/config_loader.h"
#include "experiment/experiment_config.h"

namespace sl::fuzz {

// Bytes as an experiment config file (without "extends", which would read other files).
inline void config_input(const std::string& text) {
  try {
    nlohmann::json j = parse_json_text(text, "fuzz.json");
    j.erase("extends");
    parse_experiment_config(j, "fuzz.json", "");
  } catch (const InputError&) {
  }
}

// Bytes as a corpus file (plain or gzip) read by read_text_lines, then batched: line 2i is a
// source and line 2i+1 a target sentence, bytes as token ids.
inline void corpus_input(const std::string& bytes) {
  static const std::string path = "/tmp/sl-fuzz-corpus-" + std::to_string(::getpid()) + ".txt";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  std::vector<std::string> lines;
  try {
    lines = read_text_lines(path);
  } catch (const InputError&) {
    return;
  }
  std::vector<TokenPair> pairs((lines.size() + 1) / 2);
  for (size_t i = 0; i < lines.size(); ++i)
    for (unsigned char c : lines[i]) (i % 2 ? pairs[i / 2].tgt : pairs[i / 2].src).push_back(4 + c);
  if (pairs.empty()) return;
  Batch b = make_batch(pairs);
  if (b.B != static_cast<int>(pairs.size()) || b.src.size() != static_cast<size_t>(b.B) * b.S ||
      b.tgt_in.size() != static_cast<size_t>(b.B) * b.T || b.tgt_out.size() != b.tgt_in.size())
    std::abort();
}

}  // namespace sl::fuzz
