#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sl {

// Reads a JSON config file. Malformed JSON -> InputError("<file>:<line>:<column>", ...).
nlohmann::json load_json_file(const std::string& path);
// The same for text already read from `path` (which only names it in errors); the fuzzers use it.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

// Reads an experiment config: a JSON object that may name a base config with
// "extends": "path.json" (relative to its own file). The base is read first (recursively)
// and this file's keys are merged into it, objects key by key, anything else replaced.
nlohmann::json load_config_file(const std::string& path);

// Applies "--set a.b.c=VALUE" overrides in order. VALUE is parsed as JSON when it parses
// (numbers, true/false, null, arrays, objects, quoted strings), else taken as a plain string.
// Intermediate objects are created as needed; a path through a non-object is an InputError
// naming the override.
void apply_overrides(nlohmann::json& config, const std::vector<std::string>& overrides);

}  // namespace sl
