#pragma once
#include <functional>
#include <stdexcept>

#include "distributed/communicator.h"

namespace sl {

// Thrown in the surviving nodes of a SimulatedCluster once another node has failed:
// "cluster aborted: node k failed: <what>".
class ClusterAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// N nodes inside one process, one std::thread per node, each with its own Communicator.
// The collectives use the same arithmetic (rank_order_sum.h) and the same byte accounting
// as MpiCommunicator, so a run gives bit-identical numbers and byte counts on both.
class SimulatedCluster {
 public:
  // Runs node_main on N threads and returns when all have returned. If a node throws, the
  // collectives of the other nodes throw ClusterAborted (now, if they wait in one, else at
  // their next one) and run() rethrows the first failure. A node that returns while others
  // wait in a collective (mismatched collectives) also aborts the cluster instead of hanging.
  // With a collective timeout (Communicator::set_collective_timeout), a node that waited that
  // long throws CollectiveTimeout naming the nodes that never arrived, the others abort, and
  // run() rethrows it without waiting for the nodes it named: their threads are detached
  // (a hung node may never return), so the caller should end the process soon.
  static void run(int N, const std::function<void(Communicator&)>& node_main);
};

}  // namespace sl
