#include "distributed/mpi_communicator.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include "common/input_error.h"
#include "distributed/rank_order_sum.h"

namespace sl {

namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

int as_int(size_t n, const char* what) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + ": count " + std::to_string(n) +
                             " exceeds MPI's int limit");
  return static_cast<int>(n);
}

// An all-gather as an MPI_Alltoallv in which every rank sends its block (`mine`, count
// counts[rank]) to each other rank; block m lands at displs[m] of `out` on every rank (the own
// block is not sent; the caller puts it in place). The same bytes as MPI_Allgatherv, which
// MPICH 4.0.2 (ch4:ucx) runs 3-4x slower than MPI_Alltoallv over TCP and ~20x slower through
// shared memory for the same data (measured: results/clock/validation.md).
void allgather_by_alltoallv(const void* mine, const std::vector<int>& counts,
                            const std::vector<int>& displs, void* out, MPI_Datatype type, int rank,
                            MPI_Comm comm) {
  const int N = static_cast<int>(counts.size());
  std::vector<int> sendcounts(N), sdispls(N, 0), recvcounts(N);
  for (int c = 0; c < N; ++c) {
    sendcounts[c] = c == rank ? 0 : counts[rank];
    recvcounts[c] = c == rank ? 0 : counts[c];
  }
  check(MPI_Alltoallv(mine, sendcounts.data(), sdispls.data(), type, out, recvcounts.data(),
                      displs.data(), type, comm),
        "MPI_Alltoallv (all-gather)");
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : uncaught_at_start_(std::uncaught_exceptions()) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    owns_mpi_ = true;
  }
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  // Unwinding past the communicator means this rank gives up while the others may wait in
  // a collective; finalising would wait for them forever.
  if (std::uncaught_exceptions() > uncaught_at_start_)
    mpi_abort("exception escaped while the MPI communicator was alive (see its message above)");
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (owns_mpi_) MPI_Finalize();
}

void MpiCommunicator::allreduce_sum(float* data, size_t n) {
  const int N = size_;
  as_int(n, "allreduce_sum");
  const size_t b = chunk_begin(n, N, rank_), len = chunk_begin(n, N, rank_ + 1) - b;
  std::vector<int> sendcounts(N), sdispls(N), recvcounts(N), rdispls(N);
  for (int c = 0; c < N; ++c) {
    const size_t cb = chunk_begin(n, N, c), ce = chunk_begin(n, N, c + 1);
    sendcounts[c] = c == rank_ ? 0 : static_cast<int>(ce - cb);
    sdispls[c] = static_cast<int>(cb);
    recvcounts[c] = c == rank_ ? 0 : static_cast<int>(len);
    rdispls[c] = as_int(c * len, "allreduce_sum");
  }
  // Reduce-scatter: slot m of recv_ holds rank m's chunk `rank_`; the own slot is a copy.
  recv_.resize(N * len);
  if (len) std::memcpy(recv_.data() + rank_ * len, data + b, len * sizeof(float));
  check(MPI_Alltoallv(data, sendcounts.data(), sdispls.data(), MPI_FLOAT, recv_.data(),
                      recvcounts.data(), rdispls.data(), MPI_FLOAT, comm_),
        "MPI_Alltoallv");
  std::vector<const float*> parts(N);
  for (int m = 0; m < N; ++m) parts[m] = recv_.data() + m * len;
  sum_in_rank_order(parts.data(), N, len, data + b);
  // All-gather of the reduced chunks into `data`; this rank's chunk is already in place (the
  // send and receive ranges never overlap: the own chunk is neither sent to nor received
  // from itself).
  for (int c = 0; c < N; ++c) {
    const size_t cb = chunk_begin(n, N, c), ce = chunk_begin(n, N, c + 1);
    recvcounts[c] = static_cast<int>(ce - cb);
    rdispls[c] = static_cast<int>(cb);
  }
  send_.assign(data + b, data + b + len);  // MPI forbids a send buffer inside the receive buffer
  allgather_by_alltoallv(send_.data(), recvcounts, rdispls, data, MPI_FLOAT, rank_, comm_);
  const uint64_t bytes = allreduce_bytes_of_rank(n, N, rank_);
  counters_.bytes_sent += bytes;
  counters_.bytes_received += bytes;
  ++counters_.collectives;
}

void MpiCommunicator::allgather_bytes(const std::vector<uint8_t>& mine,
                                      std::vector<std::vector<uint8_t>>& all) {
  const int N = size_;
  const uint64_t my_size = mine.size();
  std::vector<uint64_t> sizes(N);
  check(MPI_Allgather(&my_size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_),
        "MPI_Allgather");
  std::vector<int> counts(N), displs(N);
  size_t total = 0;
  for (int m = 0; m < N; ++m) {
    counts[m] = as_int(sizes[m], "allgather_bytes");
    displs[m] = as_int(total, "allgather_bytes (total)");
    total += sizes[m];
  }
  as_int(total, "allgather_bytes (total)");
  std::vector<uint8_t> flat(total);
  allgather_by_alltoallv(mine.data(), counts, displs, flat.data(), MPI_BYTE, rank_, comm_);
  std::copy(mine.begin(), mine.end(), flat.begin() + displs[rank_]);
  all.resize(N);
  uint64_t received = 0;
  for (int m = 0; m < N; ++m) {
    all[m].assign(flat.begin() + displs[m], flat.begin() + displs[m] + counts[m]);
    if (m != rank_) received += sizes[m];
  }
  counters_.bytes_sent += static_cast<uint64_t>(N - 1) * my_size;
  counters_.bytes_received += received;
  counters_.control_bytes_sent += static_cast<uint64_t>(N - 1) * sizeof(uint64_t);
  counters_.control_bytes_received += static_cast<uint64_t>(N - 1) * sizeof(uint64_t);
  ++counters_.collectives;
}

void MpiCommunicator::barrier() {
  check(MPI_Barrier(comm_), "MPI_Barrier");
  ++counters_.collectives;
}

void MpiCommunicator::allgather_fixed(const void* mine, size_t bytes, void* out) {
  const int n = as_int(bytes, "allgather_fixed");
  check(MPI_Allgather(mine, n, MPI_BYTE, out, n, MPI_BYTE, comm_), "MPI_Allgather");
  counters_.control_bytes_sent += static_cast<uint64_t>(size_ - 1) * bytes;
  counters_.control_bytes_received += static_cast<uint64_t>(size_ - 1) * bytes;
  ++counters_.collectives;
}

void mpi_abort(const std::string& message, int exit_code) {
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "rank %d: fatal: %s\n", rank, message.c_str());
  std::fflush(stderr);
  if (initialized && !finalized) {
    // Hydra forwards a rank's stderr through a pipe it polls; MPI_Abort straight after the
    // write lets it kill the job before it has read the line (the message is then lost, as
    // in pmodels/mpich#518). Half a second is ample for it to drain the pipe.
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
  std::_Exit(exit_code);
}

int run_mpi_main(const std::function<int(MpiCommunicator&)>& body) {
  std::unique_ptr<MpiCommunicator> comm;
  try {
    comm = std::make_unique<MpiCommunicator>();
  } catch (const std::exception& e) {
    mpi_abort(e.what(), 1);
  }
  // `comm` outlives the handlers: its destructor (MPI_Finalize) is collective and would
  // wait for the ranks that did not fail.
  try {
    return body(*comm);
  } catch (const InputError& e) {
    mpi_abort(e.what(), kInputErrorExitCode);
  } catch (const std::exception& e) {
    mpi_abort(e.what(), 1);
  } catch (...) {
    mpi_abort("unknown exception", 1);
  }
}

}  // namespace sl
