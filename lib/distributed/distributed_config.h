#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/config_object.h"
#include "distributed/combiner.h"
#include "distributed/pair_encoding.h"
#include "distributed/ring_network_model.h"
#include "distributed/top_k_compressor.h"

namespace sl {

enum class Method { Dense, Sparse, FedAvg };

// The JSON object "distributed" of an experiment config. Every field is optional:
//   method             "dense" | "sparse" | "fedavg"                 (default "dense")
//   combiner           "none" | "sum" | "partial" | "error"          (default "none";
//                      anything else needs method "sparse")
//   drop_ratio         rho in [0, 1)                                 (default 0.99)
//   threshold          "exact" | "sampled"                           (default "exact")
//   sample_size        values sampled for "sampled", >= 1            (default 100000)
//   drop_warmup_steps  W >= 0, 0 = no warm-up                        (default 1000)
//   average_every      K >= 0, 0 = never                             (default 500, but 0
//                      for dense, whose copies never diverge; fedavg needs K > 0)
//   average_moments    also average Adam's moments                   (default false)
//   encoding           "pairs32" | "delta-varint"                    (default "pairs32")
//   network            "1gbe" | "10gbe" | "ib100" | {"bandwidth_gbps": B > 0,
//                      "latency_us": a >= 0 (default 0)}             (default "10gbe")
// Errors are InputError naming "<file>:/distributed/<field>".
struct DistributedConfig {
  Method method = Method::Dense;
  CombinerKind combiner = CombinerKind::None;
  double drop_ratio = 0.99;
  ThresholdMode threshold = ThresholdMode::Exact;
  int64_t sample_size = 100000;
  int64_t drop_warmup_steps = 1000;
  int64_t average_every = 0;
  bool average_moments = false;
  PairEncodingKind encoding = PairEncodingKind::Pairs32;
  RingNetworkModel network = RingNetworkModel::preset("10gbe");

  // Reads and validates the object `c` points at (calls c.finish()), e.g.
  //   DistributedConfig::parse(root.object("distributed"))
  static DistributedConfig parse(ConfigObject c);
  static DistributedConfig from_json(const nlohmann::json& j, const std::string& file,
                                     const std::string& pointer = "/distributed");
  // The resolved settings (every default filled in), for run logs; parse(to_json()) == *this.
  nlohmann::json to_json() const;
  // "dense", "sparse", "sparse+partial", "fedavg", ...
  std::string method_name() const;
  // The rules between fields, in one place: "" when the combination is valid, else the
  // field to blame in `field` and what is wrong. parse() turns it into an InputError,
  // DistributedStrategy (built from code, e.g. in tests) into std::invalid_argument.
  std::string inconsistency(std::string* field) const;
};

const char* method_name(Method m);

}  // namespace sl
