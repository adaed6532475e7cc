#pragma once
#include <vector>

#include "distributed/communicator.h"

namespace sl {

// All-gathers a few doubles from every node: result[m] is node m's vector. The small control
// traffic the trainer needs (losses, flags, timings) in one collective.
std::vector<std::vector<double>> allgather_doubles(Communicator& comm,
                                                   const std::vector<double>& mine);

}  // namespace sl
