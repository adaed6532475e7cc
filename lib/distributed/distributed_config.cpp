#include "distributed/distributed_config.h"

#include "common/input_error.h"

namespace sl {

const char* method_name(Method m) {
  switch (m) {
    case Method::Sparse:
      return "sparse";
    case Method::FedAvg:
      return "fedavg";
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
                     "\"latency_us\"}, got \"" +
                         name + "\"");
  }
  if (!raw.is_object())
    throw InputError(c.where("network"),
                     "expected a preset name or an object, got " + std::string(raw.type_name()));
  ConfigObject n = c.object("network");
  const double bw = n.required_number("bandwidth_gbps", 1e-9);
  const double lat = n.number("latency_us", 0.0, 0.0);
  n.finish();
  return RingNetworkModel::custom(bw, lat);
}

}  // namespace

DistributedConfig DistributedConfig::parse(ConfigObject c) {
  DistributedConfig d;
  const std::string method = c.choice("method", "dense", {"dense", "sparse", "fedavg"});
  d.method = method == "sparse"   ? Method::Sparse
             : method == "fedavg" ? Method::FedAvg
                                  : Method::Dense;
  d.combiner =
      combiner_from_name(c.choice("combiner", "none", {"none", "sum", "partial", "error"}));
  d.drop_ratio = c.number_below("drop_ratio", 0.99, 0.0, 1.0);  // 1 would drop everything
  d.threshold = c.choice("threshold", "exact", {"exact", "sampled"}) == "sampled"
                    ? ThresholdMode::Sampled
                    : ThresholdMode::Exact;
  d.sample_size = c.integer("sample_size", 100000, 1);
  d.drop_warmup_steps = c.integer("drop_warmup_steps", 1000, 0);
  d.average_every = c.integer("average_every", d.method == Method::Dense ? 0 : 500, 0);
  d.average_moments = c.boolean("average_moments", false);
  d.encoding =
      pair_encoding_from_name(c.choice("encoding", "pairs32", {"pairs32", "delta-varint"}));
  d.network = parse_network(c);
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
  if (network.name == "custom")
    j["network"] = {{"bandwidth_gbps", network.bandwidth_gbps}, {"latency_us", network.latency_us}};
  else
    j["network"] = network.name;
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
  if (method == Method::FedAvg && average_every == 0) {
    if (field) *field = "average_every";
    return "method \"fedavg\" needs average_every > 0 (without averaging the nodes never "
           "exchange anything), got 0";
  }
  return "";
}

std::string DistributedConfig::method_name() const {
  std::string s = sl::method_name(method);
  if (combiner != CombinerKind::None) s += std::string("+") + combiner_name(combiner);
  return s;
}

}  // namespace sl
