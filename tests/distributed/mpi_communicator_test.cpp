// Run under mpiexec: MpiCommunicator against the reference rank-order sum and against a
// SimulatedCluster of the same size (bit-identical results and byte counters).
#include "distributed/mpi_communicator.h"

#include <cstdio>
#include <cstring>

#include "distributed/rank_order_sum.h"
#include "distributed/simulated_cluster.h"
#include "reference_methods.h"

namespace sl {
namespace {

int failures = 0;
void check(bool ok, const std::string& what, int rank) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
    ++failures;
  }
}

struct Result {
  std::vector<float> sum;
  std::vector<std::vector<uint8_t>> gathered;
  double d = 0;
  int64_t i = 0;
  CommCounters ctr;
};

Result exercise(Communicator& c, size_t n) {
  Result r;
  const CommCounters start = c.counters();
  r.sum = ref::gradient_like(3, c.rank(), n);
  c.allreduce_sum(r.sum.data(), n);
  std::vector<uint8_t> mine(5 * c.rank(), uint8_t(c.rank()));
  c.allgather_bytes(mine, r.gathered);
  r.d = c.allreduce_sum(0.1 * (c.rank() + 1));
  r.i = c.allreduce_sum(int64_t(c.rank()) << 33);
  c.barrier();
  r.ctr = c.counters() - start;
  return r;
}

int run(MpiCommunicator& comm) {
  const int N = comm.size(), rank = comm.rank();
  // Blocking collectives, then (collective timeout set) their polled non-blocking forms:
  // the same bits either way.
  for (double timeout_s : {0.0, 120.0})
    for (size_t n : {size_t(0), size_t(1), size_t(1001), size_t(1200), size_t(100003)}) {
      comm.set_collective_timeout(timeout_s);
      const Result got = exercise(comm, n);
      std::vector<ref::Vec> xs(N);
      for (int m = 0; m < N; ++m) xs[m] = ref::gradient_like(3, m, n);
      const std::string tag =
          " (n=" + std::to_string(n) + ", timeout " + std::to_string(timeout_s) + " s)";
      if (n)
        check(ref::mismatches(ref::rank_order_sum(xs), got.sum) == 0, "rank-order sum" + tag, rank);
      std::vector<Result> sim(N);
      SimulatedCluster::run(N, [&](Communicator& c) { sim[c.rank()] = exercise(c, n); });
      const Result& s = sim[rank];
      check(n == 0 || std::memcmp(s.sum.data(), got.sum.data(), n * 4) == 0,
            "bit-identical to simulated" + tag, rank);
      check(s.gathered == got.gathered, "allgather_bytes" + tag, rank);
      check(s.d == got.d && s.i == got.i, "scalar allreduce" + tag, rank);
      check(s.ctr.bytes_sent == got.ctr.bytes_sent &&
                s.ctr.bytes_received == got.ctr.bytes_received &&
                s.ctr.control_bytes_sent == got.ctr.control_bytes_sent &&
                s.ctr.control_bytes_received == got.ctr.control_bytes_received &&
                s.ctr.collectives == got.ctr.collectives,
            "byte counters identical to simulated" + tag, rank);
    }
  const CommCounters before = comm.counters();
  std::vector<float> v(1200, 1.0f);
  comm.allreduce_sum(v.data(), v.size());
  const CommCounters d = comm.counters() - before;
  check(d.bytes_sent == allreduce_bytes_of_rank(1200, N, rank), "allreduce bytes", rank);
  check(double(d.bytes_sent) == 2.0 * (N - 1) / N * 4 * 1200, "ring formula", rank);
  check(d.bytes_received == d.bytes_sent, "allreduce bytes received", rank);
  // The result must be the same bits on every rank.
  std::vector<uint8_t> mine(reinterpret_cast<uint8_t*>(v.data()),
                            reinterpret_cast<uint8_t*>(v.data() + v.size()));
  std::vector<std::vector<uint8_t>> all;
  comm.allgather_bytes(mine, all);
  for (int m = 0; m < N; ++m) check(all[m] == mine, "same bits on rank " + std::to_string(m), rank);
  if (rank == 0) std::printf("mpi_communicator_test N=%d: %s\n", N, failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace sl

int main() { return sl::run_mpi_main(sl::run); }
