#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace sl {

// A sentence-aligned bitext held in memory: source[i] translates to target[i].
struct ParallelCorpus {
  std::string source_path, target_path;
  std::vector<std::string> source, target;

  size_t size() const { return source.size(); }

  // Reads both sides (plain or .gz, see read_text_lines). Throws InputError when either
  // file is unreadable, empty or not UTF-8, or when their line counts differ (the message
  // names both files and both counts).
  static ParallelCorpus read(const std::string& source_path, const std::string& target_path);

  // `prefix`.`src_lang` / `prefix`.`tgt_lang`, with ".gz" appended when only the
  // compressed file exists: read_split("data/debmsg-de-en/train", "de", "en").
  static ParallelCorpus read_split(const std::string& prefix, const std::string& src_lang,
                                   const std::string& tgt_lang);
};

}  // namespace sl
