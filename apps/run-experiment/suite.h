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

}  // namespace sl
