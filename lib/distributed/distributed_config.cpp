#include "distributed/distributed_config.h"

#include <stdexcept>

#include "common/input_error.h"

namespace sl {

const char* method_name(Method m) {
  switch (m) {
    case Method::Sparse:
      return "sparse";
    case Method::FedAvg:
      return "fedavg";
    case Method::PowerSgd:
      return "powersgd";
    case Method::DiLoCo:
      return "diloco";
    case Method::DeMo:
      return "demo";
    case Method::Dense:
      break;
  }
  return "dense";
}

namespace {

RingNetworkModel parse_network(ConfigObject& c) {
  const nlohmann::json& raw = c.raw("network");
  if (raw.is_null()) return RingNetworkModel::preset("10gbe");
  if (raw.is_string()) {
    const std::string name = raw.get<std::string>();
    for (const std::string& p : network_preset_names())
      if (p == name) return RingNetworkModel::preset(name);
    throw InputError(c.where("network"),
                     "expected \"1gbe\" | \"10gbe\" | \"ib100\" or {\"bandwidth_gbps\", "
                     "\"latency_us\", \"efficiency\", \"overhead_us\"}, got \"" +
                         name + "\"");
  }
  if (!raw.is_object())
    throw InputError(c.where("network"),
                     "expected a preset name or an object, got " + std::string(raw.type_name()));
  ConfigObject n = c.object("network");
  const double bw = n.required_number("bandwidth_gbps", 1e-9);
  const double lat = n.number("latency_us", 0.0, 0.0);
  const double eta = n.number("efficiency", 1.0, 1e-6, 1.0);
  const double overhead = n.number("overhead_us", 0.0, 0.0);
  n.finish();
  return RingNetworkModel::custom(bw, lat, eta, overhead);
}

PowerSgdConfig parse_powersgd(ConfigObject c) {
  PowerSgdConfig p;
  p.rank = c.integer("rank", p.rank, 1, 1 << 20);
  p.warmup_steps = c.integer("warmup_steps", p.warmup_steps, 0);
  p.warm_start = c.boolean("warm_start", p.warm_start);
  p.min_compression_rate = c.number("min_compression_rate", p.min_compression_rate, 1.0);
  p.random_seed = c.integer("random_seed", p.random_seed, 0);
  c.finish();
  return p;
}

DiLoCoConfig parse_diloco(ConfigObject c) {
  DiLoCoConfig d;
  d.outer_lr = c.number("outer_lr", d.outer_lr, 1e-12, 100.0);
  d.outer_momentum = c.number_below("outer_momentum", d.outer_momentum, 0.0, 1.0);
  d.nesterov = c.boolean("nesterov", d.nesterov);
  c.finish();
  return d;
}

DeMoConfig parse_demo(ConfigObject c) {
  DeMoConfig d;
  d.beta = c.number("beta", d.beta, 0.0, 1.0);
  d.chunk = c.integer("chunk", d.chunk, 1, 4096);
  d.topk = c.integer("topk", d.topk, 1, 1 << 24);
  c.finish();
  return d;
}

Method method_from_name(const std::string& name) {
  for (Method m : {Method::Dense, Method::Sparse, Method::FedAvg, Method::PowerSgd, Method::DiLoCo,
                   Method::DeMo})
    if (name == sl::method_name(m)) return m;
  throw std::invalid_argument("unknown method \"" + name + "\"");
}

// Methods whose copies of theta stay identical without averaging: every node applies the same
// U (sparse-only: U_n = G on every node), so averaging them would only cost bytes.
bool copies_stay_identical(Method m, CombinerKind combiner) {
  return m == Method::Dense || m == Method::PowerSgd || m == Method::DeMo ||
         (m == Method::Sparse && combiner == CombinerKind::None);
}

}  // namespace

DistributedConfig DistributedConfig::parse(ConfigObject c) {
  DistributedConfig d;
  d.method = method_from_name(
      c.choice("method", "dense", {"dense", "sparse", "fedavg", "powersgd", "diloco", "demo"}));
  d.combiner =
      combiner_from_name(c.choice("combiner", "none", {"none", "sum", "partial", "error"}));
  d.drop_ratio = c.number_below("drop_ratio", 0.99, 0.0, 1.0);  // 1 would drop everything
  d.threshold = c.choice("threshold", "exact", {"exact", "sampled"}) == "sampled"
                    ? ThresholdMode::Sampled
                    : ThresholdMode::Exact;
  d.sample_size = c.integer("sample_size", 100000, 1);
  d.drop_warmup_steps = c.integer("drop_warmup_steps", 1000, 0);
  d.average_every = c.integer("average_every", copies_stay_identical(d.method, d.combiner) ? 0 : 500, 0);
  d.average_moments = c.boolean("average_moments", false);
  d.encoding =
      pair_encoding_from_name(c.choice("encoding", "pairs32", {"pairs32", "delta-varint"}));
  d.network = parse_network(c);
  d.powersgd = parse_powersgd(c.object("powersgd"));
  d.diloco = parse_diloco(c.object("diloco"));
  d.demo = parse_demo(c.object("demo"));
  // A method's own settings under another method would be ignored: a forgotten or misspelt
  // method would then train another method without a word.
  for (Method m : {Method::PowerSgd, Method::DiLoCo, Method::DeMo}) {
    const std::string key = sl::method_name(m);
    const nlohmann::json& section = c.raw(key);
    if (d.method != m && !section.is_null() && !(section.is_object() && section.empty()))
      throw InputError(c.where(key), "these settings apply to method \"" + key + "\" only, got method \"" +
                                         sl::method_name(d.method) + "\" (set distributed.method=" + key +
                                         ", or remove distributed." + key + ")");
  }
  c.finish();

  std::string field;
  const std::string problem = d.inconsistency(&field);
  if (!problem.empty()) throw InputError(c.where(field), problem);
  return d;
}

DistributedConfig DistributedConfig::from_json(const nlohmann::json& j, const std::string& file,
                                               const std::string& pointer) {
  ConfigObject c(j, file, pointer);
  return parse(c);
}

nlohmann::json DistributedConfig::to_json() const {
  nlohmann::json j;
  j["method"] = sl::method_name(method);
  j["combiner"] = combiner_name(combiner);
  j["drop_ratio"] = drop_ratio;
  j["threshold"] = threshold == ThresholdMode::Sampled ? "sampled" : "exact";
  j["sample_size"] = sample_size;
  j["drop_warmup_steps"] = drop_warmup_steps;
  j["average_every"] = average_every;
  j["average_moments"] = average_moments;
  j["encoding"] = pair_encoding_name(encoding);
  if (network.name == "custom") {
    j["network"] = {{"bandwidth_gbps", network.bandwidth_gbps}, {"latency_us", network.latency_us}};
    if (!network.paper_model()) {
      j["network"]["efficiency"] = network.efficiency;
      j["network"]["overhead_us"] = network.overhead_us;
    }
  } else
    j["network"] = network.name;
  if (method == Method::PowerSgd)
    j["powersgd"] = {{"rank", powersgd.rank},
                     {"warmup_steps", powersgd.warmup_steps},
                     {"warm_start", powersgd.warm_start},
                     {"min_compression_rate", powersgd.min_compression_rate},
                     {"random_seed", powersgd.random_seed}};
  if (method == Method::DiLoCo)
    j["diloco"] = {{"outer_lr", diloco.outer_lr},
                   {"outer_momentum", diloco.outer_momentum},
                   {"nesterov", diloco.nesterov}};
  if (method == Method::DeMo)
    j["demo"] = {{"beta", demo.beta}, {"chunk", demo.chunk}, {"topk", demo.topk}};
  return j;
}

std::string DistributedConfig::inconsistency(std::string* field) const {
  if (combiner != CombinerKind::None && method != Method::Sparse) {
    if (field) *field = "combiner";
    return std::string("combiner \"") + combiner_name(combiner) +
           "\" needs method \"sparse\" (it combines the sparse global gradient with the local "
           "one), got method \"" +
           sl::method_name(method) + "\"";
  }
  if ((method == Method::FedAvg || method == Method::DiLoCo) && average_every == 0) {
    if (field) *field = "average_every";
    return std::string("method \"") + sl::method_name(method) +
           "\" needs average_every > 0 (without averaging the nodes never exchange anything), "
           "got 0";
  }
  if (method == Method::DiLoCo && average_moments) {
    if (field) *field = "average_moments";
    return "method \"diloco\" never exchanges the inner optimizer's state (each node keeps its "
           "own Adam), so average_moments must be false";
  }
  return "";
}

std::vector<std::string> DistributedConfig::setting_warnings(int64_t max_steps) const {
  std::vector<std::string> w;
  const std::string steps = "train.max_steps " + std::to_string(max_steps);
  if (average_every > max_steps && !copies_stay_identical(method, combiner))
    w.push_back("distributed.average_every " + std::to_string(average_every) + " > " + steps +
                ": the nodes never " + (method == Method::DiLoCo ? "take an outer step" : "average") +
                " in this run, so each trains alone" +
                (method == Method::DiLoCo || method == Method::FedAvg ? " and nothing is exchanged" : ""));
  if (average_every > 0 && copies_stay_identical(method, combiner))
    w.push_back("distributed.average_every " + std::to_string(average_every) + " under method " +
                method_name() + ", whose copies stay identical: each averaging only sends bytes");
  if (method == Method::PowerSgd && powersgd.warmup_steps >= max_steps)
    w.push_back("distributed.powersgd.warmup_steps " + std::to_string(powersgd.warmup_steps) + " >= " + steps +
                ": every update is in the dense warm-up, nothing is compressed");
  // pairs32 sends 8 bytes per coefficient where dense sends 4 per value; a full chunk holds s^2.
  if (method == Method::DeMo && encoding == PairEncodingKind::Pairs32 && 2 * demo.topk >= demo.chunk * demo.chunk)
    w.push_back("distributed.demo.topk " + std::to_string(demo.topk) + " >= half of a " +
                std::to_string(demo.chunk) + " x " + std::to_string(demo.chunk) +
                " chunk's coefficients: its (index, value) pairs cost at least the bytes of a dense exchange");
  return w;
}

bool DistributedConfig::has_device_exchange() const {
  return method == Method::Dense || method == Method::Sparse || method == Method::FedAvg;
}

std::string DistributedConfig::method_name() const {
  std::string s = sl::method_name(method);
  if (combiner != CombinerKind::None) s += std::string("+") + combiner_name(combiner);
  return s;
}

}  // namespace sl
