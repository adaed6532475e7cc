#include "suite.h"

#include <unistd.h>

#include <set>

#include "common/config_object.h"
#include "common/input_error.h"
#include "experiment/config_loader.h"
#include "experiment/experiment_config.h"

namespace sl {

Suite load_suite(const std::string& path) {
  nlohmann::json j = load_json_file(path);
  ConfigObject root(j, path, "");
  Suite s;
  s.name = root.string("name", "");
  if (!is_folder_name(s.name))
    throw InputError(root.where("name"), "expected a non-empty suite name without '/' (not . or ..)");
  const nlohmann::json& list = root.raw("experiments");
  if (!list.is_array() || list.empty())
    throw InputError(root.where("experiments"), "expected a non-empty array of experiments");
  root.finish();
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    ConfigObject e(list[i], path, "/experiments/" + std::to_string(i));
    SuiteEntry x;
    x.name = e.string("name", "");
    if (!is_folder_name(x.name) || !names.insert(x.name).second)
      throw InputError(e.where("name"), "expected a unique, non-empty experiment name without '/' (not . or ..)");
    x.config = e.string("config", "");
    if (x.config.empty()) throw InputError(e.where("config"), "expected the path of a config file");
    if (x.config[0] != '/' && access((dir + "/" + x.config).c_str(), R_OK) == 0) x.config = dir + "/" + x.config;
    else if (access(x.config.c_str(), R_OK) != 0)
      throw InputError(e.where("config"), "\"" + x.config + "\": no such config file (looked for it in " +
                                              (x.config[0] == '/' ? std::string("/") : dir + "/ and the working directory") + ")");
    const nlohmann::json& set = e.raw("set");
    if (!set.is_null()) {
      if (!set.is_array()) throw InputError(e.where("set"), "expected an array of \"key.path=value\" strings");
      for (auto& o : set) {
        if (!o.is_string()) throw InputError(e.where("set"), "expected strings \"key.path=value\"");
        x.overrides.push_back(o.get<std::string>());
      }
    }
    x.nodes = static_cast<int>(e.integer("nodes", 0, 0, 4096));
    e.finish();
    s.experiments.push_back(std::move(x));
  }
  return s;
}

namespace {
// A float setting that binaries before 2026-12-07 wrote widened to double (0.10000000149011612)
// and later ones as the shortest decimal of the float (0.1, json_float) is one setting.
bool same_float_setting(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_number() || !b.is_number()) return false;
  const double x = a.get<double>(), y = b.get<double>();
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  return fx == fy && (static_cast<double>(fx) == x || static_cast<double>(fy) == y);
}

void collect_differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& at,
                         size_t limit, std::vector<std::string>& out) {
  if (out.size() >= limit) return;
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      if (b.contains(it.key()) && !(at.empty() && it.key() == "output"))  // where, not how
        collect_differences(it.value(), b.at(it.key()), at + "/" + it.key(), limit, out);
    return;
  }
  if (a != b && !same_float_setting(a, b)) out.push_back(at);
}
}  // namespace

std::vector<std::string> differing_settings(const nlohmann::json& stored, const nlohmann::json& now,
                                            size_t limit) {
  std::vector<std::string> out;
  if (!stored.is_object() || !now.is_object()) return out;  // no config.json to compare with
  collect_differences(stored, now, "", limit, out);
  return out;
}

}  // namespace sl
