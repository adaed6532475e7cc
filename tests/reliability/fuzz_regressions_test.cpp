// Replays the inputs the fuzzers once crashed on (fuzz/regressions/<target>/) and the fuzz
// seeds through the same code as the libFuzzer targets, in the normal (and sanitizer) build.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "one_input.h"

namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kFuzz = SL_FUZZ_DIR;

TEST(FuzzRegressions, ConfigParserInputsAreRejectedWithInputErrorOnly) {
  std::vector<std::string> inputs = files_in(kFuzz + "/regressions/config");
  for (const auto& f : files_in(kFuzz + "/seeds/config")) inputs.push_back(f);
  ASSERT_FALSE(inputs.empty());
  for (const auto& f : inputs) {
    SCOPED_TRACE(f);
    EXPECT_NO_THROW(sl::fuzz::config_input(sl::read_file(f)));
  }
}

TEST(FuzzRegressions, CorpusReaderInputsAreRejectedWithInputErrorOnly) {
  std::vector<std::string> inputs = files_in(kFuzz + "/regressions/corpus");
  for (const auto& f : files_in(kFuzz + "/seeds/corpus")) inputs.push_back(f);
  ASSERT_FALSE(inputs.empty());
  for (const auto& f : inputs) {
    SCOPED_TRACE(f);
    EXPECT_NO_THROW(sl::fuzz::corpus_input(sl::read_file(f)));
  }
}

TEST(FuzzRegressions, NumberTooLargeForADoubleIsAnInputError) {
  EXPECT_THROW(sl::parse_json_text("{\"seed\": 1e999}", "x.json"), sl::InputError);
}

}  // namespace
