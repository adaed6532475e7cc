#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/input_error.h"

namespace sl {

// Reads a JSON config file. Malformed JSON -> InputError("<file>:<line>:<column>", ...).
nlohmann::json load_json_file(const std::string& path);
// The same for text already read from `path` (which only names it in errors); the fuzzers use it.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

// Reads an experiment config: a JSON object that may name a base config with
// "extends": "path.json" (relative to its own file). The base is read first (recursively)
// and this file's keys are merged into it, objects key by key, anything else replaced.
nlohmann::json load_config_file(const std::string& path);

// Parses JSON text like nlohmann::json::parse, but rejects a key given twice in one object
// and nesting deeper than kMaxJsonDepth with an InputError naming "<where>:<json pointer>".
// Malformed JSON still throws nlohmann::json::parse_error.
constexpr int kMaxJsonDepth = 64;
nlohmann::json parse_strict_json(const std::string& text, const std::string& where);

// Where an override put its value and how to name it in errors ("--set train.lr=5", or the
// suite entry it came from). `pointer` is the JSON pointer of the shallowest value the
// override wrote: the key it set, or the first object on its path that it created
// ("--set trian.max_steps=5" creates "/trian"), so errors about that object blame it.
// An object VALUE replaces the whole object there: `reset` lists the keys the config had
// in it that the new object lacks (they fall back to their defaults).
struct OverrideOrigin {
  std::string pointer, label;
  std::vector<std::string> reset;
};

// Applies "--set a.b.c=VALUE" overrides in order. VALUE is parsed as JSON when it parses
// (numbers, true/false, null, arrays, objects, quoted strings), else taken as a plain string.
// Intermediate objects are created as needed; a path through a non-object is an InputError
// naming the override. `labels` (one per override) name them in errors instead of
// "--set <override>"; `origins` receives where each one wrote.
void apply_overrides(nlohmann::json& config, const std::vector<std::string>& overrides,
                     std::vector<OverrideOrigin>* origins = nullptr,
                     const std::vector<std::string>* labels = nullptr);

// A validation error found in the merged config of `file` blames the file; when the value it
// names (or an object holding it) came from an override, rethrow it naming that override
// instead ("--set train.no_such_key=5: unknown key ..."). Otherwise rethrows `e` unchanged.
// "--set distributed={} replaced the object /distributed: its keys combiner, method (from
// the config) are reset to their defaults; ..." for an origin whose `reset` is not empty,
// else "".
std::string describe_reset(const OverrideOrigin& origin);

[[noreturn]] void rethrow_blaming_overrides(const InputError& e, const std::string& file,
                                            const std::vector<OverrideOrigin>& origins);

}  // namespace sl
