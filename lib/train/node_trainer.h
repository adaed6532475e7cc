#pragma once
#include "distributed/communicator.h"
#include "train/training_job.h"

namespace sl {

// Trains one node of a run to the end (max steps or epochs), or until a stop signal, the
// time limit or a non-finite step under on_nonfinite = "stop". Every node of the cluster
// calls it with its own Communicator (an MPI rank, or a thread of a SimulatedCluster) and
// they stay in lock-step. Rank 0 writes the results directory. A step on node n:
//   1. g_n: forward + backward of the node's batch (sum of token losses)
//   2. the nodes agree on the loss and on non-finite values / stop requests
//   3. strategy: normalise by the global token count, exchange -> U_n (PAPER.md)
//   4. clip U_n, optimizer step on theta_n (train.optimizer: Adam, sign or sgd)
//   5. strategy: average theta (and moments) every K steps
// The loop never branches on the distributed method.
NodeOutcome run_training_node(const TrainingJob& job, Communicator& comm);

}  // namespace sl
