// Run under mpiexec -n 4: rank 2 throws while the others wait in a collective. The job must
// end (MPI_Abort through run_mpi_main) with a message naming rank 2 instead of hanging.
#include <stdexcept>
#include <vector>

#include "distributed/mpi_communicator.h"

int main() {
  return sl::run_mpi_main([](sl::MpiCommunicator& comm) {
    std::vector<float> v(1000, 1.0f);
    comm.allreduce_sum(v.data(), v.size());
    if (comm.rank() == 2) throw std::runtime_error("boom in rank 2");
    comm.allreduce_sum(v.data(), v.size());
    return 0;
  });
}
