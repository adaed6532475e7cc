#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "data/batch_generator.h"
#include "distributed/distributed_strategy.h"
#include "tensor/parameter_arena.h"
#include "train/optimizer.h"

namespace sl {

// One node's resumable state: parameters, the optimizer's state (Adam's moments and step
// count), the strategy's state (DistributedStrategy::state(): E_n of the sparse methods,
// PowerSGD's E_n and Q, DiLoCo's anchor and outer momentum, DeMo's momentum), and the data
// position. Dropout masks are counter-based on (seed, node, step), so no RNG state is needed.
struct NodeState {
  ParameterArena* arena;
  Optimizer* optimizer;
  DistributedStrategy* strategy;
  BatchGenerator* batches;
};

// checkpoints/step-<t>/node-<r>.ckpt per node, then (rank 0, after a barrier)
// checkpoints/step-<t>/run.json with the trainer's running totals (and best-model.ckpt, the
// best model as of step t: BestModel::save_into), then
// checkpoints/latest naming the step directory. Only a step directory named by `latest`
// and holding run.json is ever loaded, so a kill at any moment leaves the previous
// checkpoint usable.
class CheckpointStore {
 public:
  CheckpointStore(std::string dir, std::string model_fingerprint)
      : dir_(std::move(dir)), fingerprint_(std::move(model_fingerprint)) {}

  // Every node calls save(); rank 0 passes run_meta and also calls commit() after the barrier.
  void save_node(int64_t step, int rank, int nodes, const NodeState& s) const;
  std::string commit(int64_t step, const nlohmann::json& run_meta, int64_t keep) const;

  // The committed step directory, or "" when there is none. Without `latest`, the newest step
  // directory holding run.json (a kill between the two writes of a commit); a `latest` that is
  // empty or names no such directory (damaged) is an InputError naming it, never "none".
  std::string latest() const;
  // Restores this node's state; returns run.json. InputError when the checkpoint is
  // truncated, from another model or another number of nodes.
  nlohmann::json load_node(const std::string& step_dir, int rank, int nodes,
                           const NodeState& s) const;

  static std::string step_dir_name(int64_t step);

 private:
  std::string dir_, fingerprint_;
};

// A hash of the parameter names and shapes: a checkpoint from another model is refused.
std::string model_fingerprint(const ParameterArena& arena);

}  // namespace sl
