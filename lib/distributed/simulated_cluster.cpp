#include "distributed/simulated_cluster.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/rank_order_sum.h"

namespace sl {

namespace {

enum class Op { AllReduce, AllGatherBytes, AllGatherFixed, Barrier };

const char* op_name(Op op) {
  switch (op) {
    case Op::AllReduce:
      return "allreduce_sum(float*)";
    case Op::AllGatherBytes:
      return "allgather_bytes";
    case Op::AllGatherFixed:
      return "scalar allreduce_sum";
    case Op::Barrier:
      return "barrier";
  }
  return "?";
}

// What a node posts for a collective; the others read it between the first and last barrier.
struct Post {
  Op op = Op::Barrier;
  const void* data = nullptr;
  size_t n = 0;
};

std::string describe(const std::exception_ptr& ep) {
  try {
    std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

class SharedState {
 public:
  explicit SharedState(int N)
      : N_(N), posts_(N), here_(N, 0), exited_(N, 0), never_arrived_(N, 0) {}
  int size() const { return N_; }
  Post& post(int r) { return posts_[r]; }

  void post_locked(int r, const Post& p) {
    std::lock_guard<std::mutex> lk(mu_);
    posts_[r] = p;
  }

  // All N nodes meet. An abortable wait throws ClusterAborted when the cluster has failed;
  // the later waits of a collective are not abortable: once all N nodes passed the first
  // wait, every node is inside the collective and will arrive, and no node may leave early
  // while others still read its buffer.
  // With timeout_s > 0, an abortable wait gives up after that long and throws
  // CollectiveTimeout naming the nodes that never arrived (`what`, `index`: the collective).
  void wait_all(int rank, bool abortable, double timeout_s = 0, const char* what = "",
                uint64_t index = 0) {
    std::unique_lock<std::mutex> lk(mu_);
    if (abortable) throw_if_broken(rank);
    const uint64_t gen = generation_;
    if (++arrived_ == N_) {
      arrived_ = 0;
      std::fill(here_.begin(), here_.end(), 0);
      ++generation_;
      cv_.notify_all();
      return;
    }
    here_[rank] = 1;
    const auto over = [&] { return generation_ != gen || (abortable && broken()); };
    if (abortable && timeout_s > 0) {
      if (!cv_.wait_for(lk, std::chrono::duration<double>(timeout_s), over)) {
        // The first node to give up fails the cluster here, under the lock, so the others
        // abort instead of timing out in turn (when the nodes still waiting would no longer
        // count this one as arrived).
        std::vector<int> missing;
        for (int r = 0; r < N_; ++r)
          if (!here_[r]) {
            missing.push_back(r);
            never_arrived_[r] = 1;
          }
        const CollectiveTimeout timeout(
            describe_collective_timeout(what, index, timeout_s, missing, "node"));
        --arrived_;
        here_[rank] = 0;
        timed_out_ = true;
        if (!first_failure_) {
          first_failure_ = std::make_exception_ptr(timeout);
          message_ = std::string("cluster aborted: node ") + std::to_string(rank) +
                     " gave up: " + timeout.what();
        }
        cv_.notify_all();
        throw timeout;
      }
    } else {
      cv_.wait(lk, over);
    }
    if (generation_ != gen) return;
    --arrived_;
    here_[rank] = 0;
    throw_if_broken(rank);
  }

  void fail(int node, const std::exception_ptr& ep) {
    std::lock_guard<std::mutex> lk(mu_);
    if (!first_failure_) {
      first_failure_ = ep;
      message_ = "cluster aborted: node " + std::to_string(node) + " failed: " + describe(ep);
    }
    cv_.notify_all();
  }

  void finished(int node) {
    std::lock_guard<std::mutex> lk(mu_);
    if (returned_node_ < 0) returned_node_ = node;
    cv_.notify_all();
  }

  std::exception_ptr first_failure() {
    std::lock_guard<std::mutex> lk(mu_);
    return first_failure_;
  }

  // Node `node`'s thread ends (returned or failed).
  void exited(int node) {
    std::lock_guard<std::mutex> lk(mu_);
    exited_[node] = 1;
    cv_.notify_all();
  }

  // Waits until every node's thread has ended, except, after a collective timeout, the nodes
  // that never arrived (hung: they may never end); returns those still running.
  std::vector<int> wait_for_nodes() {
    std::unique_lock<std::mutex> lk(mu_);
    const auto settled = [&] {
      for (int r = 0; r < N_; ++r)
        if (!exited_[r] && !(timed_out_ && never_arrived_[r])) return false;
      return true;
    };
    cv_.wait(lk, settled);
    std::vector<int> running;
    for (int r = 0; r < N_; ++r)
      if (!exited_[r]) running.push_back(r);
    return running;
  }

 private:
  bool broken() const { return first_failure_ != nullptr || returned_node_ >= 0; }
  void throw_if_broken(int rank) const {
    if (first_failure_) throw ClusterAborted(message_);
    if (returned_node_ >= 0)
      throw ClusterAborted("cluster aborted: node " + std::to_string(returned_node_) +
                           " returned while node " + std::to_string(rank) +
                           " waits in a collective (the nodes called different collectives)");
  }

  const int N_;
  std::vector<Post> posts_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::exception_ptr first_failure_;
  std::string message_;
  int returned_node_ = -1;
  std::vector<char> here_;           // arrived at the current wait
  std::vector<char> exited_;         // thread ended
  std::vector<char> never_arrived_;  // named by a collective timeout
  bool timed_out_ = false;
};

class SimulatedCommunicator : public Communicator {
 public:
  SimulatedCommunicator(SharedState& s, int rank) : s_(s), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size(); }

  void allreduce_sum(float* data, size_t n) override {
    const int N = size();
    const size_t b = chunk_begin(n, N, rank_), len = chunk_begin(n, N, rank_ + 1) - b;
    // Phase 1 (reduce-scatter): only this node touches chunk `rank_` of any buffer.
    // Phase 2 (all-gather): this node writes the chunks of its own buffer that nobody reads.
    collective(
        Op::AllReduce, data, n,
        [&] {
          std::vector<const float*> parts(N);
          for (int m = 0; m < N; ++m) parts[m] = static_cast<const float*>(s_.post(m).data) + b;
          scratch_.resize(len);
          sum_in_rank_order(parts.data(), N, len, scratch_.data());
          if (len) std::memcpy(data + b, scratch_.data(), len * sizeof(float));
        },
        [&] {
          for (int c = 0; c < N; ++c) {
            if (c == rank_) continue;
            const size_t cb = chunk_begin(n, N, c), ce = chunk_begin(n, N, c + 1);
            if (ce > cb)
              std::memcpy(data + cb, static_cast<const float*>(s_.post(c).data) + cb,
                          (ce - cb) * sizeof(float));
          }
        });
    const uint64_t bytes = allreduce_bytes_of_rank(n, N, rank_);
    counters_.bytes_sent += bytes;
    counters_.bytes_received += bytes;
  }

  void allgather_bytes(const std::vector<uint8_t>& mine,
                       std::vector<std::vector<uint8_t>>& all) override {
    const int N = size();
    uint64_t received = 0;
    collective(Op::AllGatherBytes, mine.data(), mine.size(), [&] {
      all.resize(N);
      for (int m = 0; m < N; ++m) {
        const auto* p = static_cast<const uint8_t*>(s_.post(m).data);
        all[m].assign(p, p + s_.post(m).n);
        if (m != rank_) received += s_.post(m).n;
      }
    });
    counters_.bytes_sent += static_cast<uint64_t>(N - 1) * mine.size();
    counters_.bytes_received += received;
    // The sizes travel first (one uint64 per rank), as in MpiCommunicator.
    counters_.control_bytes_sent += static_cast<uint64_t>(N - 1) * sizeof(uint64_t);
    counters_.control_bytes_received += static_cast<uint64_t>(N - 1) * sizeof(uint64_t);
  }

  void barrier() override {
    collective(Op::Barrier, nullptr, 0, [] {});
  }

  void set_collective_timeout(double seconds) override {
    timeout_s_ = seconds;
    index_ = 0;
  }

 protected:
  void allgather_fixed(const void* mine, size_t bytes, void* out) override {
    const int N = size();
    collective(Op::AllGatherFixed, mine, bytes, [&] {
      for (int m = 0; m < N; ++m)
        std::memcpy(static_cast<uint8_t*>(out) + m * bytes, s_.post(m).data, bytes);
    });
    counters_.control_bytes_sent += static_cast<uint64_t>(N - 1) * bytes;
    counters_.control_bytes_received += static_cast<uint64_t>(N - 1) * bytes;
  }

 private:
  void check_same_collective(Op op, size_t n) const {
    for (int m = 0; m < size(); ++m) {
      const Post& p = s_.post(m);
      const bool size_must_match = op != Op::AllGatherBytes;
      if (p.op != op || (size_must_match && p.n != n))
        throw std::logic_error("collective mismatch: node " + std::to_string(rank_) + " called " +
                               op_name(op) + " (n=" + std::to_string(n) + "), node " +
                               std::to_string(m) + " called " + op_name(p.op) +
                               " (n=" + std::to_string(p.n) + ")");
    }
  }

  // post -> wait -> phases separated by waits -> wait. An exception in a phase is rethrown
  // only after the last wait, so no node leaves while others may still read its buffer.
  template <class... Phases>
  void collective(Op op, const void* data, size_t n, Phases&&... phases) {
    s_.post_locked(rank_, Post{op, data, n});
    ++index_;
    s_.wait_all(rank_, /*abortable=*/true, timeout_s_, op_name(op), index_);
    std::exception_ptr err;
    try {
      check_same_collective(op, n);
    } catch (...) {
      err = std::current_exception();
    }
    auto run_phase = [&](auto& phase) {
      if (!err) {
        try {
          phase();
        } catch (...) {
          err = std::current_exception();
        }
      }
      s_.wait_all(rank_, /*abortable=*/false);
    };
    (run_phase(phases), ...);
    ++counters_.collectives;
    if (err) std::rethrow_exception(err);
  }

  SharedState& s_;
  const int rank_;
  std::vector<float> scratch_;
  double timeout_s_ = 0;
  uint64_t index_ = 0;  // collectives since the timeout was set
};

}  // namespace

void SimulatedCluster::run(int N, const std::function<void(Communicator&)>& node_main) {
  if (N < 1)
    throw std::invalid_argument("SimulatedCluster::run: N must be >= 1, got " + std::to_string(N));
  // Owned by the threads too: a node abandoned after a collective timeout may outlive run().
  auto state = std::make_shared<SharedState>(N);
  auto main_fn = std::make_shared<const std::function<void(Communicator&)>>(node_main);
  std::vector<std::thread> threads;
  threads.reserve(N);
  auto node = [state, main_fn](int r) {
    try {
      SimulatedCommunicator comm(*state, r);
      (*main_fn)(comm);
      state->finished(r);
    } catch (...) {
      state->fail(r, std::current_exception());
    }
    state->exited(r);
  };
  try {
    for (int r = 0; r < N; ++r) threads.emplace_back(node, r);
  } catch (...) {
    state->fail(-1, std::current_exception());  // wakes the started nodes; they abort
    for (auto& t : threads) t.join();
    throw;
  }
  // A node that never arrived at a timed-out collective is hung (or far behind); it is left
  // running, detached, and the failure is reported now: the process is about to exit.
  std::vector<char> abandoned(N, 0);
  for (int r : state->wait_for_nodes()) abandoned[r] = 1;
  for (int r = 0; r < N; ++r) {
    if (abandoned[r])
      threads[r].detach();
    else
      threads[r].join();
  }
  if (auto ep = state->first_failure()) std::rethrow_exception(ep);
}

}  // namespace sl
