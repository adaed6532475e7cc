#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/config_object.h"
#include "distributed/combiner.h"
#include "distributed/pair_encoding.h"
#include "distributed/ring_network_model.h"
#include "distributed/top_k_compressor.h"

namespace sl {

enum class Method { Dense, Sparse, FedAvg, PowerSgd, DiLoCo, DeMo };

// The knobs of the methods that came after the paper (BEYOND.md), each with its
// source's default. A section is read (and checked) whatever the method, and used by its own.
struct PowerSgdConfig {               // Vogels et al. 2019; defaults of PyTorch's powerSGD_hook
  int64_t rank = 4;                   // r
  int64_t warmup_steps = 1000;        // dense all-reduce before compression starts
  bool warm_start = true;             // reuse Q from the previous step (else redraw every step)
  double min_compression_rate = 1.0;  // compress W (n x m) iff rate * r (n + m) < n m
  int64_t random_seed = 0;            // Q's N(0, 1) draw, the same on every node
};
struct DiLoCoConfig {  // Douillard et al. 2023: outer Nesterov SGD every H = average_every
  double outer_lr = 0.7;
  double outer_momentum = 0.9;
  bool nesterov = true;
};
struct DeMoConfig {     // Peng et al. 2024; the update rule is train.optimizer ("sign" default)
  double beta = 0.999;  // momentum decay
  int64_t chunk = 64;   // s: DCT chunks of s x s (matrices) or s (vectors)
  int64_t topk = 32;    // k coefficients sent per chunk
};

// The JSON object "distributed" of an experiment config. Every field is optional:
//   method             "dense" | "sparse" | "fedavg" | "powersgd" | "diloco" | "demo"
//                                                                    (default "dense")
//   combiner           "none" | "sum" | "partial" | "error"          (default "none";
//                      anything else needs method "sparse")
//   drop_ratio         rho in [0, 1)                                 (default 0.99)
//   threshold          "exact" | "sampled"                           (default "exact")
//   sample_size        values sampled for "sampled", >= 1            (default 100000)
//   drop_warmup_steps  W >= 0, 0 = no warm-up                        (default 1000)
//   average_every      K >= 0, 0 = never                             (default 500, but 0
//                      for dense, powersgd, demo and sparse with combiner none, whose
//                      copies never diverge; fedavg and diloco need K > 0; for diloco it
//                      is H, the inner steps)
//   average_moments    also average Adam's moments                   (default false)
//   encoding           "pairs32" | "delta-varint"                    (default "pairs32")
//   network            "1gbe" | "10gbe" | "ib100" | {"bandwidth_gbps": B > 0,
//                      "latency_us": a >= 0 (default 0),
//                      "efficiency": eta in (0, 1] (default 1),
//                      "overhead_us": o >= 0 (default 0)}           (default "10gbe")
//                      eta and o: the measured link's terms, results/clock/validation.md
//   powersgd           {rank, warmup_steps, warm_start, min_compression_rate, random_seed}
//   diloco             {outer_lr, outer_momentum, nesterov}
//   demo               {beta, chunk, topk}   (pairs travel in `encoding`)
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
  PowerSgdConfig powersgd;
  DiLoCoConfig diloco;
  DeMoConfig demo;

  // Reads and validates the object `c` points at (calls c.finish()), e.g.
  //   DistributedConfig::parse(root.object("distributed"))
  static DistributedConfig parse(ConfigObject c);
  static DistributedConfig from_json(const nlohmann::json& j, const std::string& file,
                                     const std::string& pointer = "/distributed");
  // The resolved settings (every default filled in), for run logs; parse(to_json()) == *this
  // for every setting the method uses (a method's own section is written only for it).
  nlohmann::json to_json() const;
  // "dense", "sparse", "sparse+partial", "fedavg", ...
  std::string method_name() const;
  // The rules between fields, in one place: "" when the combination is valid, else the
  // field to blame in `field` and what is wrong. parse() turns it into an InputError,
  // DistributedStrategy (built from code, e.g. in tests) into std::invalid_argument.
  std::string inconsistency(std::string* field) const;
  // Valid settings that do nothing or cost more than they save in a run of at most `max_steps`
  // updates, one sentence each (the trainer prints them as warnings): an averaging period
  // longer than the run (fedavg, diloco and sparse+local never exchange, so the nodes train
  // alone), averaging where the copies stay identical (only bytes), a PowerSGD warm-up as long
  // as the run (it never compresses), a DeMo top-k that sends at least dense's bytes.
  std::vector<std::string> setting_warnings(int64_t max_steps) const;
  // Whether DeviceDistributedStrategy (CUDA builds) implements this method; the others run
  // the host strategy on copies of the device buffers.
  bool has_device_exchange() const;
};

const char* method_name(Method m);

}  // namespace sl
