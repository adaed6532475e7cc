#pragma once
#include <cstddef>

namespace sl {

// PAPER.md's analytic payload per node and step, in bytes. StepStats reports these next to
// the bytes the Communicator actually counted; the tests assert they agree.

// Dense ring all-reduce of n floats: each node sends 2(N-1)/N * 4n bytes.
inline double analytic_allreduce_bytes(size_t n_floats, int N) {
  return N <= 1 ? 0.0 : 2.0 * (N - 1) / N * 4.0 * static_cast<double>(n_floats);
}

// Sparse all-gather: a node's encoded S_n reaches N - 1 peers: (N-1) * k * bytes_per_pair.
inline double analytic_allgather_bytes(size_t own_encoded_bytes, int N) {
  return static_cast<double>(N - 1) * static_cast<double>(own_encoded_bytes);
}

// PowerSGD, a compressing step: ring all-reduces of the factors P (n x r) and Q (m x r) of
// every compressed n x m tensor, sum_W r(n + m) floats, and of the tensors sent dense.
inline double analytic_powersgd_bytes(size_t factor_floats, size_t dense_floats, int N) {
  return analytic_allreduce_bytes(factor_floats, N) + analytic_allreduce_bytes(dense_floats, N);
}

// DeMo: a node's encoded top-k DCT pairs reach N - 1 peers, as the sparse all-gather above.

}  // namespace sl
