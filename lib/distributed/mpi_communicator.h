#pragma once
// Only built when SL_MPI is on (SL_HAVE_MPI is then defined for users of sl_distributed).
#include <mpi.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace sl {

// The Communicator over MPI (MPICH). It does NOT use MPI_Allreduce's reduction, whose order
// is unspecified: the float all-reduce is a reduce-scatter by MPI_Alltoallv (rank r sums
// chunk r in rank order, rank_order_sum.h) followed by MPI_Allgatherv, so the result is
// bit-identical on every rank and to SimulatedCluster, and each rank sends 2(N-1)/N * 4n bytes.
//
// Waiting: without a collective timeout (the default) the blocking MPI calls wait, and
// MPICH's progress engine polls, so a rank waiting for a stopped peer keeps a core busy for
// as long as it takes. With set_collective_timeout(T > 0) each collective is started
// non-blocking and polled with MPI_Test, sleeping between polls (backing off to 2 ms), so a
// long wait costs little CPU; before each collective every rank posts a small "arrival note"
// (its collective count) to every peer on a communicator of its own, and a collective still
// unfinished after T seconds throws CollectiveTimeout naming the ranks whose note for it never
// came. The data moved, hence every result, is the same either way.
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
  // Collective over this communicator (MPI_Comm_dup of the notes' communicator, the first time).
  void set_collective_timeout(double seconds) override;

 protected:
  void allgather_fixed(const void* mine, size_t bytes, void* out) override;

 private:
  // Runs one collective: start(nullptr) is the blocking call; with a timeout, start(&request)
  // begins its non-blocking form, which is then polled (see the class comment).
  void collective(const char* what, const std::function<int(MPI_Request*)>& start);
  void announce_arrival();
  void read_arrival_notes();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_mpi_ = false;
  int uncaught_at_start_ = 0;
  std::vector<float> recv_;
  std::vector<float> send_;  // the own reduced chunk, sent in the all-gather

  double timeout_s_ = 0;
  MPI_Comm notes_comm_ = MPI_COMM_NULL;
  uint64_t entered_ = 0;                // collectives this rank entered since the timeout was set
  std::vector<uint64_t> peer_entered_;  // the highest count each peer's notes announced
  struct SentNote {
    uint64_t count;
    std::vector<MPI_Request> requests;
  };
  std::deque<SentNote> sent_notes_;  // until MPI says their buffers are free
};

// Prints "rank R: fatal: <message>" to stderr and aborts the whole MPI job (all ranks), so
// an error in one rank never leaves the others hanging in a collective.
[[noreturn]] void mpi_abort(const std::string& message, int exit_code = 1);

// main() for MPI programs: builds the MpiCommunicator, runs body, and turns an exception in
// any rank into mpi_abort naming that rank (exit code 2 for InputError, else 1).
// Returns body's result on success.
int run_mpi_main(const std::function<int(MpiCommunicator&)>& body);

}  // namespace sl
