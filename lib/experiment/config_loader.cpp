#include "experiment/config_loader.h"

#include <sys/stat.h>

#include <functional>
#include <set>

#include "common/atomic_file.h"
#include "common/input_error.h"

namespace sl {

nlohmann::json load_json_file(const std::string& path) { return parse_json_text(read_file(path), path); }

namespace {

// RFC 6901 escaping of one JSON pointer token.
std::string pointer_token(const std::string& key) {
  std::string s;
  for (char c : key) {
    if (c == '~') s += "~0";
    else if (c == '/') s += "~1";
    else s += c;
  }
  return s;
}

// Rejects, while parsing, what nlohmann::json would accept silently or cannot survive:
// a key given twice in one object (the last would win) and nesting deeper than
// kMaxJsonDepth (copying or comparing such a value recurses once per level and overflows
// the stack). Each error names the JSON pointer where it happened.
class StrictJsonGuard {
 public:
  explicit StrictJsonGuard(std::string where) : where_(std::move(where)) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (frames_.size() >= static_cast<size_t>(kMaxJsonDepth))
          throw InputError(where_ + ":" + pointer(frames_.size()),
                           "nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep (expected a config: objects and arrays a few levels deep)");
        frames_.push_back(Frame{event == E::array_start, 0, {}, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        const std::string key = parsed.get<std::string>();
        f.key = key;
        if (!f.keys.insert(key).second)
          throw InputError(where_ + ":" + pointer(frames_.size()),
                           "duplicate key \"" + key +
                               "\" (expected each key once per object; the JSON parser would keep only the last)");
        break;
      }
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        next_element();
        break;
      case E::value:
        next_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    size_t index;
    std::string key;
    std::set<std::string> keys;
  };
  void next_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  // The pointer of the element being parsed in the first `levels` frames.
  std::string pointer(size_t levels) const {
    std::string p;
    for (size_t i = 0; i < levels && i < frames_.size(); ++i)
      p += "/" + (frames_[i].array ? std::to_string(frames_[i].index) : pointer_token(frames_[i].key));
    return p.empty() ? "/" : p;
  }

  std::string where_;
  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_strict_json(const std::string& text, const std::string& where) {
  StrictJsonGuard guard(where);
  return nlohmann::json::parse(text, std::ref(guard));
}

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path, "empty file (expected a JSON object)");
  try {
    nlohmann::json j = parse_strict_json(text, path);
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
  struct stat st;
  if (::stat(base.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(path + ":/extends", "\"" + j["extends"].get<std::string>() + "\" (" + base +
                                              "): no such config file");
  nlohmann::json merged = load_with_bases(base, depth + 1);
  j.erase("extends");
  merge_into(merged, j);
  return merged;
}

}  // namespace

nlohmann::json load_config_file(const std::string& path) { return load_with_bases(path, 0); }

void apply_overrides(nlohmann::json& config, const std::vector<std::string>& overrides,
                     std::vector<OverrideOrigin>* origins, const std::vector<std::string>* labels) {
  for (size_t i = 0; i < overrides.size(); ++i) {
    const std::string& o = overrides[i];
    const std::string label = labels && i < labels->size() ? (*labels)[i] : "--set " + o;
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(label, "expected KEY.PATH=VALUE, e.g. train.lr=0.0005");
    const std::string path = o.substr(0, eq), text = o.substr(eq + 1);
    nlohmann::json value;
    try {
      value = parse_strict_json(text, label);
    } catch (const nlohmann::json::exception&) {
      value = text;  // not JSON: a plain string
    }
    nlohmann::json* cur = &config;
    std::string pointer, created;  // created: the first object on the path this override made
    std::vector<std::string> reset;
    size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (key.empty()) throw InputError(label, "empty key in path \"" + path + "\"");
      if (!cur->is_object())
        throw InputError(label, "\"" + path.substr(0, start ? start - 1 : 0) + "\" is not an object");
      pointer += "/" + pointer_token(key);
      if (dot == std::string::npos) {
        nlohmann::json& target = (*cur)[key];
        if (value.is_object() && target.is_object())
          for (auto it = target.begin(); it != target.end(); ++it)
            if (!value.contains(it.key())) reset.push_back(it.key());
        target = value;
        break;
      }
      cur = &(*cur)[key];
      if (cur->is_null()) {
        *cur = nlohmann::json::object();
        if (created.empty()) created = pointer;
      }
      start = dot + 1;
    }
    if (origins) origins->push_back({created.empty() ? pointer : created, label, reset});
  }
}

std::string describe_reset(const OverrideOrigin& origin) {
  if (origin.reset.empty()) return "";
  std::string keys;
  for (const std::string& k : origin.reset) keys += (keys.empty() ? "" : ", ") + k;
  std::string path = origin.pointer.substr(1);  // "/valid/decode" -> "valid.decode"
  for (char& c : path)
    if (c == '/') c = '.';
  return origin.label + " replaced the whole object " + origin.pointer + ": its key(s) " + keys +
         " from the config are reset to their defaults (to change one key and keep the others, "
         "set it alone: --set " +
         path + ".KEY=VALUE)";
}

void rethrow_blaming_overrides(const InputError& e, const std::string& file,
                               const std::vector<OverrideOrigin>& origins) {
  const std::string& where = e.where();
  const std::string prefix = file + ":";
  if (where.compare(0, prefix.size(), prefix) == 0) {
    const std::string pointer = where.substr(prefix.size());
    // The last override that set this value or an object holding it.
    for (auto it = origins.rbegin(); it != origins.rend(); ++it) {
      if (pointer == it->pointer || pointer.compare(0, it->pointer.size() + 1, it->pointer + "/") == 0) {
        std::string what = e.what();
        what = what.size() > where.size() + 2 ? what.substr(where.size() + 2) : what;
        if (pointer != it->pointer) what = "at " + pointer + ": " + what;
        throw InputError(it->label, what);
      }
    }
  }
  throw e;
}

}  // namespace sl
