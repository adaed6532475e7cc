// Replays the inputs the fuzzers once crashed on (fuzz/regressions/<target>/) and the fuzz
// seeds through the same code as the libFuzzer targets, in the normal (and sanitizer) build.
#include <dirent.h>
#include <gtest/gtest.h>

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

// Found by the config fuzzer: an integer field given as 1e20 (or an unsigned above LLONG_MAX)
// was converted to long long before the range check (undefined behaviour).
TEST(FuzzRegressions, IntegerFieldsBeyondLongLongAreRangeErrors) {
  for (const char* text :
       {"{\"name\": \"x\", \"seed\": 1e20}", "{\"name\": \"x\", \"seed\": 18446744073709551615}",
        "{\"name\": \"x\", \"seed\": -1e300}"}) {
    SCOPED_TRACE(text);
    nlohmann::json j = sl::parse_json_text(text, "x.json");
    try {
      sl::parse_experiment_config(j, "x.json", "");
      ADD_FAILURE() << "accepted";
    } catch (const sl::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/seed"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("an integer >= 0 (at most 2^62)"), std::string::npos) << e.what();
    }
  }
}

// Issue 15: a key given twice was accepted (the last one silently won); each input of
// fuzz/regressions/config/duplicate-*.json must be rejected naming the JSON pointer.
TEST(FuzzRegressions, DuplicateKeysAreInputErrorsNamingThePointer) {
  const std::pair<const char*, const char*> cases[] = {
      {"duplicate-key.json", "duplicate-key.json:/train: duplicate key \"train\""},
      {"duplicate-nested-key.json", "duplicate-nested-key.json:/train/lr: duplicate key \"lr\""}};
  for (const auto& [name, expected] : cases) {
    SCOPED_TRACE(name);
    try {
      sl::parse_json_text(sl::read_file(kFuzz + "/regressions/config/" + name), name);
      ADD_FAILURE() << "accepted";
    } catch (const sl::InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    }
  }
}

// Issue 15: a config nested 100,000 levels deep overflowed the stack when it was copied
// (and then hung in UCX's SIGSEGV handler); it must be rejected while parsing.
TEST(FuzzRegressions, DeepNestingIsRejectedAtParseTime) {
  try {
    sl::parse_json_text(sl::read_file(kFuzz + "/regressions/config/nested-100000-levels.json"), "deep.json");
    ADD_FAILURE() << "accepted";
  } catch (const sl::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json:/train/0/0/"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nested more than 64 levels"), std::string::npos) << e.what();
  }
}

TEST(FuzzRegressions, NumberTooLargeForADoubleIsAnInputError) {
  EXPECT_THROW(sl::parse_json_text("{\"seed\": 1e999}", "x.json"), sl::InputError);
}

}  // namespace
