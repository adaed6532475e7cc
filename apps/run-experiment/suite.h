#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sl {

// A suite file: {"name": S, "experiments": [{"name": E, "config": PATH, "set": [...],
// "nodes": N}, ...]} (scripts/slurm/README.md). Results go to <output>/<S>/<E>/.
struct SuiteEntry {
  std::string name, config;
  std::vector<std::string> overrides;
  int nodes = 0;  // 0 = as in the config
};
struct Suite {
  std::string name;
  std::vector<SuiteEntry> experiments;
};

// InputError naming "<file>:<json pointer>" for malformed suites; relative config paths
// are resolved next to the suite file first, then from the working directory.
Suite load_suite(const std::string& path);

// JSON pointers of the leaves whose values differ between a finished run's config.json and
// the config the suite would run now, over the keys both have (a key a newer binary added is
// not a difference) but /output (where the results go, not how they were made), at most
// `limit` of them. A suite skips a finished experiment; this says
// when its results no longer match the suite file.
std::vector<std::string> differing_settings(const nlohmann::json& stored,
                                            const nlohmann::json& now, size_t limit = 3);

}  // namespace sl
