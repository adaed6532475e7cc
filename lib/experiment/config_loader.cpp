#include "experiment/config_loader.h"

#include "common/atomic_file.h"
#include "common/input_error.h"

namespace sl {

nlohmann::json load_json_file(const std::string& path) { return parse_json_text(read_file(path), path); }

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, "empty file (expected a JSON object)");
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) throw InputError(path, std::string("expected a JSON object, got ") + j.type_name());
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the error: turn it into line:column.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    auto p = what.find("parse error");
    throw InputError(path + ":" + std::to_string(line) + ":" + std::to_string(col),
                     "malformed JSON (" + (p == std::string::npos ? what : what.substr(p)) + ")");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double (1e999): the parser gives no position.
    throw InputError(path, std::string("malformed JSON (") + e.what() + ")");
  }
}

namespace {

void merge_into(nlohmann::json& base, const nlohmann::json& top) {
  for (auto it = top.begin(); it != top.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
      merge_into(base[it.key()], it.value());
    else
      base[it.key()] = it.value();
  }
}

nlohmann::json load_with_bases(const std::string& path, int depth) {
  nlohmann::json j = load_json_file(path);
  if (!j.contains("extends")) return j;
  if (!j["extends"].is_string())
    throw InputError(path + ":/extends", "expected the path of a base config (a string)");
  if (depth > 8) throw InputError(path + ":/extends", "more than 8 levels of \"extends\" (a cycle?)");
  std::string base = j["extends"].get<std::string>();
  if (!base.empty() && base[0] != '/' && path.find('/') != std::string::npos)
    base = path.substr(0, path.rfind('/') + 1) + base;
  nlohmann::json merged = load_with_bases(base, depth + 1);
  j.erase("extends");
  merge_into(merged, j);
  return merged;
}

}  // namespace

nlohmann::json load_config_file(const std::string& path) { return load_with_bases(path, 0); }

void apply_overrides(nlohmann::json& config, const std::vector<std::string>& overrides) {
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set " + o, "expected KEY.PATH=VALUE, e.g. train.lr=0.0005");
    const std::string path = o.substr(0, eq), text = o.substr(eq + 1);
    nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;
    nlohmann::json* cur = &config;
    size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (key.empty()) throw InputError("--set " + o, "empty key in path \"" + path + "\"");
      if (!cur->is_object())
        throw InputError("--set " + o, "\"" + path.substr(0, start ? start - 1 : 0) + "\" is not an object");
      if (dot == std::string::npos) {
        (*cur)[key] = value;
        break;
      }
      cur = &(*cur)[key];
      if (cur->is_null()) *cur = nlohmann::json::object();
      start = dot + 1;
    }
  }
}

}  // namespace sl
