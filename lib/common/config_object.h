#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace sl {

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
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const nlohmann::json* got) const;

  nlohmann::json j_;
  std::string file_, pointer_;
  std::set<std::string> read_;
};

}  // namespace sl
