#pragma once
// Only built when SL_MPI is on (SL_HAVE_MPI is then defined for users of sl_distributed).
#include <mpi.h>

#include <functional>
#include <string>

#include "distributed/communicator.h"

namespace sl {

// The Communicator over MPI (MPICH). It does NOT use MPI_Allreduce's reduction, whose order
// is unspecified: the float all-reduce is a reduce-scatter by MPI_Alltoallv (rank r sums
// chunk r in rank order, rank_order_sum.h) followed by MPI_Allgatherv, so the result is
// bit-identical on every rank and to SimulatedCluster, and each rank sends 2(N-1)/N * 4n bytes.
class MpiCommunicator : public Communicator {
 public:
  // Initialises MPI if nobody did (and then finalises it in the destructor) and works on a
  // duplicate of `comm`, so that its messages never mix with other users of MPI.
  // Destroyed by an exception unwinding the stack, it calls mpi_abort instead of hanging.
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(float* data, size_t n) override;
  void allgather_bytes(const std::vector<uint8_t>& mine,
                       std::vector<std::vector<uint8_t>>& all) override;
  void barrier() override;

 protected:
  void allgather_fixed(const void* mine, size_t bytes, void* out) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
  int uncaught_at_start_ = 0;
  std::vector<float> recv_;
  std::vector<float> send_;  // the own reduced chunk, sent in the all-gather
};

// Prints "rank R: fatal: <message>" to stderr and aborts the whole MPI job (all ranks), so
// an error in one rank never leaves the others hanging in a collective.
[[noreturn]] void mpi_abort(const std::string& message, int exit_code = 1);

// main() for MPI programs: builds the MpiCommunicator, runs body, and turns an exception in
// any rank into mpi_abort naming that rank (exit code 2 for InputError, else 1).
// Returns body's result on success.
int run_mpi_main(const std::function<int(MpiCommunicator&)>& body);

}  // namespace sl
