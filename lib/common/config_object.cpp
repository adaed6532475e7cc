#include "common/config_object.h"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/input_error.h"

namespace sl {

namespace {
std::string describe(const nlohmann::json* v) {
  if (!v) return "nothing";
  std::string s = v->dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return std::string(v->type_name()) + " " + s;
}
std::string num(double x) {
  std::ostringstream ss;
  ss << x;
  return ss.str();
}
thread_local ConfigSchemaRecorder* t_recorder = nullptr;

std::string range_text(double min, double max, const char* close = "]") {
  const bool lo = min > -1e299, hi = max < 1e299;
  if (lo && hi) return "[" + num(min) + ", " + num(max) + close;
  if (lo) return ">= " + num(min);
  if (hi) return std::string(*close == ')' ? "< " : "<= ") + num(max);
  return "";
}
std::string range_text(long long min, long long max) {
  const bool lo = min > -(1LL << 62), hi = max < (1LL << 62);
  if (lo && hi) return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (lo) return ">= " + std::to_string(min);
  if (hi) return "<= " + std::to_string(max);
  return "";
}

}  // namespace

ConfigSchemaRecorder* set_config_schema_recorder(ConfigSchemaRecorder* r) {
  ConfigSchemaRecorder* old = t_recorder;
  t_recorder = r;
  return old;
}

void ConfigObject::record(const std::string& key, const std::string& type, const nlohmann::json& def,
                          const std::string& allowed, bool required) const {
  if (!t_recorder) return;
  const std::string p = pointer_ + "/" + key;
  auto it = t_recorder->keys.find(p);
  // A typed read says more than a raw one; a later typed read (choice after string) wins.
  if (it != t_recorder->keys.end() && type == "any" && it->second.type != "any") return;
  ConfigKeyInfo& k = t_recorder->keys[p];
  const bool was_required = it != t_recorder->keys.end() && k.required;
  k = ConfigKeyInfo{p, type, def, allowed, required || was_required};
}

ConfigObject::ConfigObject(const nlohmann::json& j, std::string file, std::string pointer)
    : j_(j.is_null() ? nlohmann::json::object() : j),
      file_(std::move(file)),
      pointer_(std::move(pointer)) {
  if (!j_.is_object())
    throw InputError(file_ + ":" + (pointer_.empty() ? "/" : pointer_),
                     "expected an object, got " + describe(&j_));
}

bool ConfigObject::has(const std::string& key) const { return j_.contains(key); }

const nlohmann::json* ConfigObject::get(const std::string& key) {
  read_.insert(key);
  auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

void ConfigObject::fail(const std::string& key, const std::string& expected,
                        const nlohmann::json* got) const {
  throw InputError(where(key), "expected " + expected + ", got " + describe(got));
}

double ConfigObject::number(const std::string& key, double def, double min, double max) {
  record(key, "number", def, range_text(min, max));
  const nlohmann::json* v = get(key);
  if (!v) return def;
  if (!v->is_number()) fail(key, "a number", v);
  double x = v->get<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    // ">= 1" rather than "[1, 1e+300]" where only one bound is the setting's
    const std::string range = range_text(min, max);
    fail(key, range.empty() ? "a finite number" : "a number " + (range[0] == '[' ? "in " + range : range), v);
  }
  return x;
}

double ConfigObject::number_below(const std::string& key, double def, double min, double sup) {
  const nlohmann::json* v = get(key);
  record(key, "number", def, range_text(min, sup, ")"));
  if (!v) return def;
  const std::string expected = "a number in [" + num(min) + ", " + num(sup) + ")";
  if (!v->is_number()) fail(key, expected, v);
  double x = v->get<double>();
  if (!std::isfinite(x) || x < min || x >= sup) fail(key, expected, v);
  return x;
}

double ConfigObject::required_number(const std::string& key, double min, double max) {
  record(key, "number", nullptr, range_text(min, max), /*required=*/true);
  if (!has(key)) fail(key, "a number (required)", nullptr);
  const double x = number(key, 0, min, max);
  record(key, "number", nullptr, range_text(min, max), /*required=*/true);
  return x;
}

long long ConfigObject::integer(const std::string& key, long long def, long long min,
                                long long max) {
  record(key, "integer", def, range_text(min, max));
  const nlohmann::json* v = get(key);
  if (!v) return def;
  bool integral = v->is_number_integer() ||
                  (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>());
  if (!integral) fail(key, "an integer", v);
  // ">= 0 (at most 2^62)" rather than "[0, 4611686018427387904]"; the cap is named since a
  // value such as 1e20 is >= 0 and still out of range
  const std::string bounds = range_text(min, max);
  const std::string cap = max >= (1LL << 62) ? " (at most 2^62)" : min <= -(1LL << 62) ? " (at least -2^62)" : "";
  const std::string range =
      (bounds.empty() ? "an integer" : "an integer " + (bounds[0] == '[' ? "in " + bounds : bounds)) + cap;
  // Compare before converting: a float such as 1e20, or an unsigned above LLONG_MAX, has no
  // long long value (casting it is undefined behaviour, found by the config fuzzer).
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max)) || std::fabs(d) >= 9.2e18)
      fail(key, range, v);
    return static_cast<long long>(d);
  }
  if (v->is_number_unsigned() &&
      v->get<unsigned long long>() > static_cast<unsigned long long>(max))
    fail(key, range, v);
  long long x = v->get<long long>();
  if (x < min || x > max) fail(key, range, v);
  return x;
}

bool ConfigObject::boolean(const std::string& key, bool def) {
  record(key, "boolean", def, "true | false");
  const nlohmann::json* v = get(key);
  if (!v) return def;
  if (!v->is_boolean()) fail(key, "true or false", v);
  return v->get<bool>();
}

std::string ConfigObject::string(const std::string& key, const std::string& def) {
  record(key, "string", def, "");
  const nlohmann::json* v = get(key);
  if (!v) return def;
  if (!v->is_string()) fail(key, "a string", v);
  return v->get<std::string>();
}

std::string ConfigObject::choice(const std::string& key, const std::string& def,
                                 const std::vector<std::string>& choices) {
  std::string s = string(key, def);
  {
    std::string list;
    for (auto& c : choices) list += (list.empty() ? "" : " | ") + ("\"" + c + "\"");
    record(key, "string", def.empty() ? nlohmann::json() : nlohmann::json(def), list);
  }
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string list;
    for (auto& c : choices) list += (list.empty() ? "" : " | ") + ("\"" + c + "\"");
    fail(key, "one of " + list, &j_[key]);
  }
  return s;
}

ConfigObject ConfigObject::object(const std::string& key) {
  record(key, "object", nullptr, "");
  const nlohmann::json* v = get(key);
  if (v && !v->is_object()) fail(key, "an object", v);
  return ConfigObject(v ? *v : nlohmann::json::object(), file_, pointer_ + "/" + key);
}

const nlohmann::json& ConfigObject::raw(const std::string& key) {
  static const nlohmann::json null_json;
  record(key, "any", nullptr, "");
  const nlohmann::json* v = get(key);
  return v ? *v : null_json;
}

void ConfigObject::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!read_.count(it.key())) {
      std::vector<std::string> known(read_.begin(), read_.end());
      std::string list;
      for (auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError(file_ + ":" + pointer_ + "/" + it.key(),
                       "unknown key (known keys here: " + list + ")");
    }
  }
}

double json_float(float f) {
  char buf[48];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, f);  // shortest round trip
  double d = static_cast<double>(f);
  std::from_chars(buf, r.ptr, d);  // locale-independent, as to_chars
  return d;
}

}  // namespace sl
