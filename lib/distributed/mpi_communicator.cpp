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

constexpr int kArrivalTag = 1;  // MpiCommunicator's arrival notes

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

int as_int(size_t n, const char* what) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + ": count " + std::to_string(n) +
                             " exceeds MPI's int limit");
  return static_cast<int>(n);
}

// An all-gather as an MPI_Alltoallv in which every rank sends its block (count counts[rank])
// to each other rank, and block m lands at displs[m] on every rank (the own block is not sent;
// the caller puts it in place). The same bytes as MPI_Allgatherv, which MPICH 4.0.2 (ch4:ucx)
// runs 3-4x slower than MPI_Alltoallv over TCP and ~20x slower through shared memory for the
// same data (measured: results/clock/validation.md). These are its count arrays.
struct GatherCounts {
  std::vector<int> send, send_displs, recv;
};
GatherCounts alltoallv_gather_counts(const std::vector<int>& counts, int rank) {
  const int N = static_cast<int>(counts.size());
  GatherCounts g{std::vector<int>(N), std::vector<int>(N, 0), std::vector<int>(N)};
  for (int c = 0; c < N; ++c) {
    g.send[c] = c == rank ? 0 : counts[rank];
    g.recv[c] = c == rank ? 0 : counts[c];
  }
  return g;
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
  if (notes_comm_ != MPI_COMM_NULL) {
    // Every rank ended its collectives, so each peer sent one note per collective, in order
    // (MPI does not reorder messages of one sender): receive those still queued here.
    uint64_t count = 0;
    for (int p = 0; p < size_; ++p)
      for (; p != rank_ && peer_entered_[p] < entered_; ++peer_entered_[p])
        MPI_Recv(&count, 1, MPI_UINT64_T, p, kArrivalTag, notes_comm_, MPI_STATUS_IGNORE);
    for (SentNote& n : sent_notes_)
      MPI_Waitall(static_cast<int>(n.requests.size()), n.requests.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&notes_comm_);
  }
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (owns_mpi_) MPI_Finalize();
}

void MpiCommunicator::set_collective_timeout(double seconds) {
  if (seconds > 0 && notes_comm_ == MPI_COMM_NULL)
    check(MPI_Comm_dup(comm_, &notes_comm_), "MPI_Comm_dup");
  timeout_s_ = seconds;
  entered_ = 0;
  peer_entered_.assign(size_, 0);
}

void MpiCommunicator::announce_arrival() {
  while (!sent_notes_.empty()) {
    SentNote& n = sent_notes_.front();
    int done = 0;
    check(MPI_Testall(static_cast<int>(n.requests.size()), n.requests.data(), &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (!done) break;
    sent_notes_.pop_front();
  }
  sent_notes_.push_back({++entered_, {}});  // a deque keeps `count` where MPI reads it
  SentNote& note = sent_notes_.back();
  note.requests.reserve(static_cast<size_t>(size_));
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    note.requests.emplace_back();
    check(
        MPI_Isend(&note.count, 1, MPI_UINT64_T, p, kArrivalTag, notes_comm_, &note.requests.back()),
        "MPI_Isend");
  }
}

void MpiCommunicator::read_arrival_notes() {
  for (;;) {
    int waiting = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kArrivalTag, notes_comm_, &waiting, &st), "MPI_Iprobe");
    if (!waiting) return;
    uint64_t count = 0;
    check(MPI_Recv(&count, 1, MPI_UINT64_T, st.MPI_SOURCE, kArrivalTag, notes_comm_,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (count > peer_entered_[st.MPI_SOURCE]) peer_entered_[st.MPI_SOURCE] = count;
  }
}

void MpiCommunicator::collective(const char* what, const std::function<int(MPI_Request*)>& start) {
  if (timeout_s_ <= 0) {
    check(start(nullptr), what);
    return;
  }
  announce_arrival();
  MPI_Request request;
  check(start(&request), what);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point begin = Clock::now();
  std::chrono::microseconds nap(20);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    read_arrival_notes();
    const double waited = std::chrono::duration<double>(Clock::now() - begin).count();
    if (waited >= timeout_s_) {
      std::vector<int> missing;
      for (int p = 0; p < size_; ++p)
        if (p != rank_ && peer_entered_[p] < entered_) missing.push_back(p);
      throw CollectiveTimeout(
          describe_collective_timeout(what, entered_, timeout_s_, missing, "rank"));
    }
    // Short naps while a collective is likely to end soon, up to 2 ms while it is not.
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(2000));
  }
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
  collective("MPI_Alltoallv", [&](MPI_Request* r) {
    return r ? MPI_Ialltoallv(data, sendcounts.data(), sdispls.data(), MPI_FLOAT, recv_.data(),
                              recvcounts.data(), rdispls.data(), MPI_FLOAT, comm_, r)
             : MPI_Alltoallv(data, sendcounts.data(), sdispls.data(), MPI_FLOAT, recv_.data(),
                             recvcounts.data(), rdispls.data(), MPI_FLOAT, comm_);
  });
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
  const GatherCounts g = alltoallv_gather_counts(recvcounts, rank_);
  collective("MPI_Alltoallv (all-gather)", [&](MPI_Request* r) {
    return r ? MPI_Ialltoallv(send_.data(), g.send.data(), g.send_displs.data(), MPI_FLOAT, data,
                              g.recv.data(), rdispls.data(), MPI_FLOAT, comm_, r)
             : MPI_Alltoallv(send_.data(), g.send.data(), g.send_displs.data(), MPI_FLOAT, data,
                             g.recv.data(), rdispls.data(), MPI_FLOAT, comm_);
  });
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
  collective("MPI_Allgather", [&](MPI_Request* r) {
    return r ? MPI_Iallgather(&my_size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_, r)
             : MPI_Allgather(&my_size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_);
  });
  std::vector<int> counts(N), displs(N);
  size_t total = 0;
  for (int m = 0; m < N; ++m) {
    counts[m] = as_int(sizes[m], "allgather_bytes");
    displs[m] = as_int(total, "allgather_bytes (total)");
    total += sizes[m];
  }
  as_int(total, "allgather_bytes (total)");
  std::vector<uint8_t> flat(total);
  const GatherCounts g = alltoallv_gather_counts(counts, rank_);
  collective("MPI_Alltoallv (all-gather)", [&](MPI_Request* r) {
    return r ? MPI_Ialltoallv(mine.data(), g.send.data(), g.send_displs.data(), MPI_BYTE,
                              flat.data(), g.recv.data(), displs.data(), MPI_BYTE, comm_, r)
             : MPI_Alltoallv(mine.data(), g.send.data(), g.send_displs.data(), MPI_BYTE,
                             flat.data(), g.recv.data(), displs.data(), MPI_BYTE, comm_);
  });
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
  collective("MPI_Barrier",
             [&](MPI_Request* r) { return r ? MPI_Ibarrier(comm_, r) : MPI_Barrier(comm_); });
  ++counters_.collectives;
}

void MpiCommunicator::allgather_fixed(const void* mine, size_t bytes, void* out) {
  const int n = as_int(bytes, "allgather_fixed");
  collective("MPI_Allgather", [&](MPI_Request* r) {
    return r ? MPI_Iallgather(mine, n, MPI_BYTE, out, n, MPI_BYTE, comm_, r)
             : MPI_Allgather(mine, n, MPI_BYTE, out, n, MPI_BYTE, comm_);
  });
  counters_.control_bytes_sent += static_cast<uint64_t>(size_ - 1) * bytes;
  counters_.control_bytes_received += static_cast<uint64_t>(size_ - 1) * bytes;
  ++counters_.collectives;
}

void mpi_abort(const std::string& message, int exit_code) {
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Bad input is an "error" (exit code 2) as in one process; anything else is "fatal".
  std::fprintf(stderr, "rank %d: %s: %s\n", rank, exit_code == kInputErrorExitCode ? "error" : "fatal",
               message.c_str());
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
