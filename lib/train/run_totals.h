#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

#include "distributed/comm_accounting.h"
#include "distributed/network_seconds.h"

namespace sl {

// The trainer's running totals, kept by rank 0 and saved in each checkpoint's run.json so
// a resumed run continues its clocks and its best-BLEU bookkeeping.
struct RunTotals {
  int64_t step = 0;  // optimizer steps done
  int64_t tokens = 0;
  int64_t skipped_steps = 0;
  double wall_s = 0;       // training wall time, validation included
  NetworkSeconds modeled;  // modeled training time: slowest node's compute + modeled comm
  double best_bleu = -1;
  int64_t best_step = 0;
  double bytes_sent = 0;  // sum over steps of the mean bytes sent per node
  // The communication model of `modeled` (comm_accounting.h); a checkpoint without the key
  // is version 1.
  int comm_model = kCommModelVersion;
  // The kernels each part of the run ran on (kernel_record.h): a fresh run starts one segment,
  // a resume onto other kernels adds one. A checkpoint without the key (older than the record)
  // starts the list at its step.
  nlohmann::json kernels = nlohmann::json::array();

  // A completed step: its tokens (all nodes), mean bytes sent per node, modeled step time.
  void add_step(int64_t step_tokens, double mean_bytes_sent, const NetworkSeconds& step_time) {
    ++step;
    tokens += step_tokens;
    bytes_sent += mean_bytes_sent;
    modeled += step_time;
  }

  nlohmann::json to_json() const;
  static RunTotals from_json(const nlohmann::json& j);
  nlohmann::json modeled_json() const {
    return modeled.to_json();
  }  // {"1gbe": s, ..., "configured": s}
};

}  // namespace sl
