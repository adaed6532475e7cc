// bleu REF_FILE [HYP_FILE|-] [--chrf] [--json]
// sacreBLEU-compatible corpus BLEU (and chrF2) of one hypothesis file against one reference
// file, one segment per line. Text output mirrors sacreBLEU's; --json mirrors its JSON
// (one object, or an array of two with --chrf) plus unrounded values.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/app_main.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "eval/metrics/bleu.h"
#include "eval/metrics/chrf.h"
#include "eval/metrics/sacrebleu_compat.h"
#include "eval/metrics/utf8_text.h"

namespace {

struct Lines {
  std::string name;  // path, or "<stdin>"
  std::vector<std::string> lines;
};

// Lines end at '\n' only (like sacreBLEU, which opens files with newline="\n"); a last
// line without '\n' still counts. Trailing whitespace such as '\r' is left to the metrics,
// which strip it the way sacreBLEU does.
Lines read_lines(const std::string& path) {
  Lines out;
  std::string text;
  if (path == "-") {
    out.name = "<stdin>";
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    out.name = path;
    text = sl::read_file(path);
  }
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    out.lines.emplace_back(text, begin, end - begin);
    begin = end + 1;
  }
  for (size_t i = 0; i < out.lines.size(); ++i) {
    if (const auto bad = sl::find_invalid_utf8(out.lines[i])) {
      throw sl::InputError(out.name + ":" + std::to_string(i + 1),
                           "invalid UTF-8 at byte " + std::to_string(*bad + 1) +
                               " (expected UTF-8 text)");
    }
  }
  return out;
}

// "score" with 2 decimals: sacreBLEU's JSON with -w 2, as its text form str(BLEUScore) (its CLI
// default width is 1).
double rounded2(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return std::strtod(buf, nullptr);
}

// sacreBLEU adds every signature field as its own key.
void add_signature_fields(nlohmann::ordered_json& j, const std::string& signature) {
  j["signature"] = signature;
  size_t begin = 0;
  while (begin <= signature.size()) {
    size_t end = signature.find('|', begin);
    if (end == std::string::npos) end = signature.size();
    const std::string field = signature.substr(begin, end - begin);
    const size_t colon = field.find(':');
    j[field.substr(0, colon)] = field.substr(colon + 1);
    begin = end + 1;
  }
}

nlohmann::ordered_json bleu_json(const sl::BleuScore& s) {
  nlohmann::ordered_json j;
  j["name"] = "BLEU";
  j["score"] = rounded2(s.score);
  j["signature"] = sl::bleu_signature();  // sacreBLEU's key order: signature first
  j["verbose_score"] = sl::format_bleu_details(s);
  add_signature_fields(j, sl::bleu_signature());
  j["score_unrounded"] = s.score;
  j["precisions"] = s.precisions;
  j["bp"] = s.bp;
  j["ratio"] = s.ratio;
  j["hyp_len"] = s.hyp_len;
  j["ref_len"] = s.ref_len;
  j["counts"] = s.correct;
  j["totals"] = s.total;
  return j;
}

nlohmann::ordered_json chrf_json(const sl::ChrfScore& s) {
  nlohmann::ordered_json j;
  j["name"] = "chrF" + std::to_string(sl::kChrfBeta);
  j["score"] = rounded2(s.score);
  add_signature_fields(j, sl::chrf_signature());
  j["score_unrounded"] = s.score;
  return j;
}

int run(const std::string& ref_path, const std::string& hyp_path, bool with_chrf,
        bool as_json) {
  const Lines refs = read_lines(ref_path);
  const Lines hyps = read_lines(hyp_path);
  if (refs.lines.empty()) {
    throw sl::InputError(refs.name, "is empty (expected one reference segment per line)");
  }
  if (hyps.lines.size() != refs.lines.size()) {
    throw sl::InputError(hyps.name, "has " + std::to_string(hyps.lines.size()) +
                                        " lines but reference " + refs.name + " has " +
                                        std::to_string(refs.lines.size()) +
                                        " (expected one hypothesis per reference line)");
  }
  const sl::BleuScore bleu = sl::corpus_bleu(hyps.lines, refs.lines);
  sl::ChrfScore chrf;
  if (with_chrf) chrf = sl::corpus_chrf(hyps.lines, refs.lines);

  if (as_json) {
    const nlohmann::ordered_json b = bleu_json(bleu);
    const nlohmann::ordered_json out =
        with_chrf ? nlohmann::ordered_json::array({b, chrf_json(chrf)}) : b;
    std::cout << out.dump(1) << "\n";
  } else {
    std::cout << sl::format_bleu(bleu) << "\n"
              << "BLEU signature: " << sl::bleu_signature() << "\n";
    if (with_chrf) {
      std::cout << sl::format_chrf(chrf) << "\n"
                << "chrF" << sl::kChrfBeta << " signature: " << sl::chrf_signature() << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{std::string("Corpus BLEU (and chrF2) exactly as sacreBLEU ") +
               sl::kSacrebleuCompatibleVersion +
               " computes them with default settings (13a, exp smoothing, one reference)."};
  std::string ref_path, hyp_path = "-";
  bool with_chrf = false, as_json = false;
  app.add_option("REF_FILE", ref_path, "Reference segments, one per line (UTF-8)")->required();
  app.add_option("HYP_FILE", hyp_path, "Hypotheses, one per line; '-' or omitted: stdin");
  app.add_flag("--chrf", with_chrf, "Also report chrF2");
  app.add_flag("--json", as_json,
               "Print sacreBLEU-style JSON (an array of two objects with --chrf); \"score\" has 2 "
               "decimals as `sacrebleu -w 2` and the text output (sacreBLEU's CLI defaults to 1), "
               "\"score_unrounded\" all of them");
  if (const int rc = sl::app::parse(app, argc, argv); rc >= 0) return rc;
  return sl::app::run("bleu: ", "bleu: ", [&] { return run(ref_path, hyp_path, with_chrf, as_json); });
}
