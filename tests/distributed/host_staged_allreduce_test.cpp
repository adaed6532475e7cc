// host_staged_allreduce (dense on a GPU, through host memory; issue 32): no copies and no
// collective with one node; with several, the CPU all-reduce's result bit for bit, the same
// booked bytes, and the copies' time booked as communication.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "distributed/dense_exchange.h"
#include "distributed/simulated_cluster.h"
#include "reference_methods.h"

namespace sl {
namespace {

struct NodeResult {
  std::vector<float> grad;
  StepStats stats;
  int copies_out = 0, copies_in = 0;
};

// Each node's gradient lives in `device` (a stand-in for GPU memory); the copies to and from
// the staging buffer are counted, and each sleeps `copy_ms` so its time is visible.
std::vector<NodeResult> staged(int N, size_t P, int copy_ms) {
  std::vector<NodeResult> out(static_cast<size_t>(N));
  SimulatedCluster::run(N, [&](Communicator& comm) {
    NodeResult& r = out[static_cast<size_t>(comm.rank())];
    r.grad = ref::gradient_like(3, comm.rank(), P);
    std::vector<float> staging(P);
    CommAccounting acct(comm, RingNetworkModel::preset("1gbe"));
    auto pause = [copy_ms] { std::this_thread::sleep_for(std::chrono::milliseconds(copy_ms)); };
    host_staged_allreduce(
        acct, r.stats, staging.data(), P,
        [&](float* h) {
          std::memcpy(h, r.grad.data(), P * sizeof(float));
          ++r.copies_out;
          pause();
        },
        [&](const float* h) {
          std::memcpy(r.grad.data(), h, P * sizeof(float));
          ++r.copies_in;
          pause();
        });
  });
  return out;
}

std::vector<NodeResult> on_host(int N, size_t P) {
  std::vector<NodeResult> out(static_cast<size_t>(N));
  SimulatedCluster::run(N, [&](Communicator& comm) {
    NodeResult& r = out[static_cast<size_t>(comm.rank())];
    r.grad = ref::gradient_like(3, comm.rank(), P);
    CommAccounting acct(comm, RingNetworkModel::preset("1gbe"));
    DenseAllReduceExchange(acct, P).exchange(r.grad.data(), 0, r.stats);
  });
  return out;
}

TEST(HostStagedAllreduce, OneNodeCopiesNothing) {
  const size_t P = 1000;
  const auto s = staged(1, P, 0);
  const auto h = on_host(1, P);
  EXPECT_EQ(0, s[0].copies_out);
  EXPECT_EQ(0, s[0].copies_in);
  EXPECT_EQ(h[0].grad, s[0].grad);  // the sum of one gradient is itself
  EXPECT_EQ(0.0, s[0].stats.comm_seconds);
  EXPECT_EQ(h[0].stats.bytes_sent, s[0].stats.bytes_sent);
  EXPECT_EQ(h[0].stats.analytic_bytes_sent, s[0].stats.analytic_bytes_sent);
  EXPECT_EQ(h[0].stats.modeled_comm.configured, s[0].stats.modeled_comm.configured);
}

TEST(HostStagedAllreduce, SeveralNodesEqualTheHostAllreduceAndBookTheCopiesAsCommunication) {
  const int N = 3;
  const size_t P = 10007;
  const int copy_ms = 20;
  const auto s = staged(N, P, copy_ms);
  const auto h = on_host(N, P);
  for (int n = 0; n < N; ++n) {
    EXPECT_EQ(1, s[n].copies_out);
    EXPECT_EQ(1, s[n].copies_in);
    EXPECT_EQ(0, std::memcmp(h[n].grad.data(), s[n].grad.data(), P * sizeof(float)));
    EXPECT_EQ(h[n].stats.bytes_sent, s[n].stats.bytes_sent);
    EXPECT_EQ(h[n].stats.bytes_received, s[n].stats.bytes_received);
    EXPECT_EQ(h[n].stats.analytic_bytes_sent, s[n].stats.analytic_bytes_sent);
    EXPECT_EQ(h[n].stats.modeled_comm.configured, s[n].stats.modeled_comm.configured);
    // Not a speed check: both copies (each sleeping copy_ms) lie inside the measured span, so
    // comm_seconds is at least their sum; booked as compute it would lack them.
    EXPECT_GE(s[n].stats.comm_seconds, 2 * copy_ms * 1e-3);
  }
}

}  // namespace
}  // namespace sl
