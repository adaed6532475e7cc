#include "data/parallel_corpus.h"

#include <sys/stat.h>

#include "common/input_error.h"
#include "data/text_lines.h"

namespace sl {
namespace {

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string plain_or_gz(const std::string& path) {
  if (file_exists(path) || !file_exists(path + ".gz")) return path;
  return path + ".gz";
}

}  // namespace

ParallelCorpus ParallelCorpus::read(const std::string& source_path,
                                    const std::string& target_path) {
  ParallelCorpus c;
  c.source_path = source_path;
  c.target_path = target_path;
  c.source = read_text_lines(source_path);
  c.target = read_text_lines(target_path);
  if (c.source.size() != c.target.size()) {
    throw InputError(source_path, "has " + std::to_string(c.source.size()) +
                                      " lines but its target " + target_path + " has " +
                                      std::to_string(c.target.size()) +
                                      " (expected equal line counts)");
  }
  return c;
}

ParallelCorpus ParallelCorpus::read_split(const std::string& prefix,
                                          const std::string& src_lang,
                                          const std::string& tgt_lang) {
  return read(plain_or_gz(prefix + "." + src_lang), plain_or_gz(prefix + "." + tgt_lang));
}

}  // namespace sl
