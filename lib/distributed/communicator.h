#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sl {

// Bytes this rank sent to / received from OTHER ranks (copies to itself are free).
// `bytes_*` is the payload of the data collectives (gradients, pairs, parameters): this is
// what PAPER.md's byte formulas describe and what the tests compare with them.
// `control_bytes_*` is the small rest: the sizes exchanged before a variable all-gather and
// the scalar all-reduces (token counts, divergence), counted apart so nothing is hidden.
struct CommCounters {
  uint64_t bytes_sent = 0, bytes_received = 0;
  uint64_t control_bytes_sent = 0, control_bytes_received = 0;
  uint64_t collectives = 0;

  CommCounters operator-(const CommCounters& o) const;
};

// A collective waited longer than the communicator's collective timeout for another rank.
class CollectiveTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "collective timeout: allreduce_sum (collective 12) waited 30 s for rank(s) 2, which never
// entered it (stopped, hung, or far slower than the others)"; `missing` empty: every rank
// entered it and one stopped answering inside it.
std::string describe_collective_timeout(const char* collective, uint64_t index, double seconds,
                                        const std::vector<int>& missing, const char* rank_word);

// The transport between the N nodes. Every collective is deterministic: a sum is computed
// per element in rank order, x_0 + x_1 + ... + x_{N-1}, so the result is bit-identical on
// every rank and identical between implementations (MpiCommunicator, SimulatedCluster).
// All ranks must call the same collectives in the same order with the same sizes.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // In place: data[i] = sum over ranks in rank order. Reduce-scatter (rank r sums chunk r,
  // see rank_order_sum.h) then all-gather: each rank sends 2(N-1)/N * 4n bytes.
  virtual void allreduce_sum(float* data, size_t n) = 0;
  // all[m] = rank m's `mine`; sizes may differ per rank (exchanged first, as control bytes).
  virtual void allgather_bytes(const std::vector<uint8_t>& mine,
                               std::vector<std::vector<uint8_t>>& all) = 0;
  virtual void barrier() = 0;

  // A limit on how long a collective waits for the other ranks (cluster.collective_timeout_s):
  // past it, the collective throws CollectiveTimeout naming the ranks that never entered it.
  // 0 (the default) waits forever. It changes how a rank waits, never what is computed. Every
  // rank sets the same value at the same point of its sequence of collectives.
  virtual void set_collective_timeout(double seconds) = 0;

  // Scalars, summed in rank order (an all-gather of 8 bytes, counted as control bytes).
  double allreduce_sum(double x);
  int64_t allreduce_sum(int64_t x);

  const CommCounters& counters() const { return counters_; }

 protected:
  // out[m * bytes .. (m+1) * bytes) = rank m's `mine`; control-byte accounting is done here.
  virtual void allgather_fixed(const void* mine, size_t bytes, void* out) = 0;
  CommCounters counters_;
};

}  // namespace sl
