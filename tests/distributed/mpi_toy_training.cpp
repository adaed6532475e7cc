// Run under mpiexec -n N: trains the toy model with every method over MPI, then rank 0
// trains the same on a SimulatedCluster of N nodes and compares every node's run bit for bit
// (params, losses, first update, byte counts, tau, divergence). Writes a result file
// (method, hash, match, node 0's final params as hex floats) to argv[1].
#include <cstdio>
#include <sstream>

#include "common/atomic_file.h"
#include "distributed/mpi_communicator.h"
#include "distributed/simulated_cluster.h"
#include "toy_training.h"

int main(int argc, char** argv) {
  return sl::run_mpi_main([&](sl::MpiCommunicator& comm) {
    if (argc != 2) throw std::runtime_error("usage: mpi_toy_training <result-file>");
    const int N = comm.size();
    std::ostringstream report;
    int mismatched = 0;
    for (const auto& [name, cfg] : sl::toy::methods()) {
      const sl::toy::Run run = sl::toy::train(comm, cfg);
      std::vector<std::vector<uint8_t>> mpi_runs;
      comm.allgather_bytes(run.serialize(), mpi_runs);
      if (comm.rank() == 0) {
        std::vector<std::vector<uint8_t>> sim_runs(N);
        std::vector<sl::toy::Run> sim(N);
        sl::SimulatedCluster::run(N, [&](sl::Communicator& c) {
          sim[c.rank()] = sl::toy::train(c, cfg);
          sim_runs[c.rank()] = sim[c.rank()].serialize();
        });
        uint64_t h_mpi = 0, h_sim = 0;
        for (int n = 0; n < N; ++n) {
          h_mpi = h_mpi * 31 + sl::toy::fnv1a(mpi_runs[n]);
          h_sim = h_sim * 31 + sl::toy::fnv1a(sim_runs[n]);
        }
        const bool same = mpi_runs == sim_runs;
        mismatched += !same;
        report << name << " N=" << N << " mpi=" << std::hex << h_mpi << " sim=" << h_sim << std::dec
               << (same ? " identical" : " DIFFERENT") << " loss " << run.losses.front() << " -> "
               << run.losses.back() << "\n  params";
        char buf[32];
        for (float x : run.params) std::snprintf(buf, sizeof buf, " %a", x), report << buf;
        report << "\n";
      }
      comm.barrier();
    }
    if (comm.rank() == 0) {
      sl::write_file_atomic(argv[1], report.str());
      std::fputs(report.str().c_str(), stdout);
      std::printf("%s\n",
                  mismatched ? "MPI and simulated runs DIFFER" : "MPI == simulated, bit for bit");
    }
    return mismatched ? 1 : 0;
  });
}
