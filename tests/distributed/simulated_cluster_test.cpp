#include "distributed/simulated_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>

#include "distributed/rank_order_sum.h"
#include "distributed/wire_bytes.h"
#include "reference_methods.h"

namespace sl {
namespace {

TEST(SimulatedCluster, AllreduceIsTheRankOrderSumBitIdenticalOnEveryNode) {
  for (int N = 1; N <= 4; ++N) {
    const size_t n = 1001;  // not divisible by 2, 3 or 4: uneven chunks
    std::vector<ref::Vec> x(N);
    for (int m = 0; m < N; ++m) x[m] = ref::gradient_like(3, m, n);
    const ref::Vec expected = ref::rank_order_sum(x);
    std::vector<ref::Vec> out(N);
    SimulatedCluster::run(N, [&](Communicator& c) {
      ref::Vec v = x[c.rank()];
      c.allreduce_sum(v.data(), v.size());
      out[c.rank()] = v;
    });
    for (int m = 0; m < N; ++m) {
      ASSERT_EQ(0, std::memcmp(out[m].data(), out[0].data(), n * sizeof(float))) << "node " << m;
      EXPECT_EQ(0u, ref::mismatches(out[m], expected)) << "N=" << N;
    }
  }
}

TEST(SimulatedCluster, AllreduceAddsInRankOrderNotAnyOther) {
  // (((1 + 1e8) - 1e8) + 1) == 1 in float; a tree ((x0 + x1) + (x2 + x3)) gives 0, and so
  // does x0 + x3 + x2 + x1.
  const float vals[4] = {1.0f, 1e8f, -1e8f, 1.0f};
  std::vector<float> out(4);
  SimulatedCluster::run(4, [&](Communicator& c) {
    std::vector<float> v(8, vals[c.rank()]);
    c.allreduce_sum(v.data(), v.size());
    out[c.rank()] = v[c.rank() * 2];
  });
  for (float r : out) EXPECT_EQ(1.0f, r);
}

TEST(SimulatedCluster, AllreduceByteCountsMatchTheRingFormula) {
  for (int N = 1; N <= 4; ++N) {
    for (size_t n : {size_t(1200), size_t(1001), size_t(3)}) {
      std::vector<CommCounters> ctr(N);
      SimulatedCluster::run(N, [&](Communicator& c) {
        std::vector<float> v(n, 1.0f);
        c.allreduce_sum(v.data(), n);
        ctr[c.rank()] = c.counters();
      });
      double total = 0;
      for (int r = 0; r < N; ++r) {
        EXPECT_EQ(ctr[r].bytes_sent, allreduce_bytes_of_rank(n, N, r));
        EXPECT_EQ(ctr[r].bytes_received, ctr[r].bytes_sent);
        if (n % N == 0) {
          EXPECT_EQ(double(ctr[r].bytes_sent), analytic_allreduce_bytes(n, N));
        }
        total += ctr[r].bytes_sent;
      }
      EXPECT_DOUBLE_EQ(total, N * analytic_allreduce_bytes(n, N)) << "N=" << N << " n=" << n;
    }
  }
}

TEST(SimulatedCluster, AllgatherBytesCarriesVariableSizesAndCountsThem) {
  const int N = 4;
  std::vector<std::vector<std::vector<uint8_t>>> got(N);
  std::vector<CommCounters> ctr(N);
  auto payload = [](int r) {  // node 0 sends nothing
    std::vector<uint8_t> v(3 * r);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(r * 16 + i);
    return v;
  };
  SimulatedCluster::run(N, [&](Communicator& c) {
    c.allgather_bytes(payload(c.rank()), got[c.rank()]);
    ctr[c.rank()] = c.counters();
  });
  for (int r = 0; r < N; ++r) {
    ASSERT_EQ(size_t(N), got[r].size());
    for (int m = 0; m < N; ++m) EXPECT_EQ(payload(m), got[r][m]);
    EXPECT_EQ(ctr[r].bytes_sent, uint64_t((N - 1) * 3 * r));
    EXPECT_EQ(ctr[r].bytes_received, uint64_t(3 * (0 + 1 + 2 + 3) - 3 * r));
    EXPECT_EQ(ctr[r].control_bytes_sent, uint64_t((N - 1) * 8));
  }
}

TEST(SimulatedCluster, ScalarAllreduceIsExactAndControlBytes) {
  std::vector<double> d(3);
  std::vector<int64_t> i(3);
  SimulatedCluster::run(3, [&](Communicator& c) {
    d[c.rank()] = c.allreduce_sum(0.1 * (c.rank() + 1));
    i[c.rank()] = c.allreduce_sum(int64_t(1) << (40 + c.rank()));
    EXPECT_EQ(c.counters().bytes_sent, 0u);
    EXPECT_EQ(c.counters().control_bytes_sent, 2u * 2 * 8);
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(d[r], (0.1 * 1 + 0.1 * 2) + 0.1 * 3);
    EXPECT_EQ(i[r], (int64_t(1) << 40) + (int64_t(1) << 41) + (int64_t(1) << 42));
  }
}

TEST(SimulatedCluster, FailingNodeAbortsTheOthersAndRunRethrowsQuickly) {
  for (int fail_after : {0, 3}) {
    std::mutex mu;
    std::vector<std::string> others;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      SimulatedCluster::run(4, [&](Communicator& c) {
        std::vector<float> v(100, 1.0f);
        for (int s = 0;; ++s) {
          if (c.rank() == 2 && s == fail_after) throw std::runtime_error("boom");
          try {
            c.allreduce_sum(v.data(), v.size());
          } catch (const ClusterAborted& e) {
            std::lock_guard<std::mutex> lk(mu);
            others.push_back(e.what());
            throw;
          }
        }
      });
      FAIL() << "run() returned";
    } catch (const ClusterAborted&) {
      FAIL() << "run() rethrew a secondary failure";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ("boom", e.what());
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
    ASSERT_EQ(3u, others.size());
    for (const auto& m : others) EXPECT_EQ("cluster aborted: node 2 failed: boom", m);
  }
}

TEST(SimulatedCluster, MismatchedCollectivesThrowInsteadOfHanging) {
  EXPECT_THROW(SimulatedCluster::run(2,
                                     [](Communicator& c) {
                                       std::vector<float> v(10 + 2 * c.rank());
                                       c.allreduce_sum(v.data(), v.size());
                                     }),
               std::logic_error);
  try {
    SimulatedCluster::run(3, [](Communicator& c) {
      if (c.rank() != 1) c.barrier();
    });
    FAIL() << "no error";
  } catch (const ClusterAborted& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("node 1 returned")) << e.what();
  }
}

TEST(SimulatedCluster, CollectiveTimeoutNamesTheNodesThatNeverArrived) {
  // Node 1 stops answering before the second barrier until the test lets it go, after run()
  // has given up on it (its thread is left running, so it only uses what it owns).
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> go = release->get_future().share();
  auto returned = std::make_shared<std::promise<void>>();
  std::future<void> hung_returned = returned->get_future();
  std::vector<double> sums(3, 0.0);
  try {
    SimulatedCluster::run(3, [go, returned, &sums](Communicator& c) {
      c.set_collective_timeout(0.3);
      sums[c.rank()] = c.allreduce_sum(1.0 + c.rank());  // all arrive: the usual result
      if (c.rank() == 1) {
        go.wait();
        returned->set_value();
        return;
      }
      c.barrier();
    });
    FAIL() << "run() returned";
  } catch (const CollectiveTimeout& e) {
    EXPECT_NE(std::string::npos,
              std::string(e.what()).find(
                  "barrier (collective 2 since the timeout was set) waited 0.3 s "
                  "(cluster.collective_timeout_s) for node(s) 1, which never entered it"))
        << e.what();
  }
  for (double s : sums) EXPECT_EQ(6.0, s);
  release->set_value();
  hung_returned.wait();
}

TEST(SimulatedCluster, RejectsZeroNodes) {
  EXPECT_THROW(SimulatedCluster::run(0, [](Communicator&) {}), std::invalid_argument);
}

}  // namespace
}  // namespace sl
