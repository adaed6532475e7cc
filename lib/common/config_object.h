#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sl {

// What the validator reads, as it reads it: with a recorder installed (on this thread),
// every ConfigObject accessor notes the key's JSON pointer, type, default and allowed range.
// run-experiment --config-reference is built from this, so the reference cannot drift from
// the validator.
struct ConfigKeyInfo {
  std::string pointer;        // "/train/lr"
  std::string type;           // "number", "integer", "boolean", "string", "object", "any"
  nlohmann::json default_value;  // null when there is none
  std::string allowed;        // "[1e-12, 10]", "one of \"skip\" | \"stop\"", ...
  bool required = false;
};
struct ConfigSchemaRecorder {
  std::map<std::string, ConfigKeyInfo> keys;
};
// Installs `r` for this thread (nullptr to stop recording); returns the previous one.
ConfigSchemaRecorder* set_config_schema_recorder(ConfigSchemaRecorder* r);

// Typed, validated access to one JSON object of a config. Every error is an InputError whose
// "where" is "<file>:<json pointer>" and whose text says what was expected and what was got.
// Call finish() after reading all fields: any key that was not read is rejected as unknown,
// so a typo never silently falls back to a default.
//
//   ConfigObject c(j["train"], "configs/tiny.json", "/train");
//   double lr = c.number("lr", 5e-4, /*min=*/0.0);
//   c.finish();
class ConfigObject {
 public:
  ConfigObject(const nlohmann::json& j, std::string file, std::string pointer);

  bool has(const std::string& key) const;
  double number(const std::string& key, double def, double min = -1e300, double max = 1e300);
  // A number in [min, sup): the upper bound itself is excluded (ratios, probabilities).
  double number_below(const std::string& key, double def, double min, double sup);
  double required_number(const std::string& key, double min = -1e300, double max = 1e300);
  long long integer(const std::string& key, long long def, long long min = -(1LL << 62),
                    long long max = (1LL << 62));
  bool boolean(const std::string& key, bool def);
  std::string string(const std::string& key, const std::string& def);
  // A string that must be one of `choices`.
  std::string choice(const std::string& key, const std::string& def,
                     const std::vector<std::string>& choices);
  // A nested object (an empty object when absent); mark it read.
  ConfigObject object(const std::string& key);
  const nlohmann::json& raw(const std::string& key);  // marks read; null when absent

  std::string where(const std::string& key) const { return file_ + ":" + pointer_ + "/" + key; }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

  // Throws InputError for the first key that was never read.
  void finish() const;

 private:
  const nlohmann::json* get(const std::string& key);
  void record(const std::string& key, const std::string& type, const nlohmann::json& def,
              const std::string& allowed, bool required = false) const;
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const nlohmann::json* got) const;

  nlohmann::json j_;
  std::string file_, pointer_;
  std::set<std::string> read_;
};

// A float setting as a JSON number: the shortest decimal that reads back as the same float
// (0.1, not the double 0.10000000149011612 the float widens to), so config.json shows the value
// as written and a run from it gets the same float.
double json_float(float f);

}  // namespace sl
