#pragma once
#include <cstddef>
#include <cstdint>

namespace sl {

// The arithmetic shared by every Communicator implementation, so that MPI and the
// simulated cluster give bit-identical sums and identical byte counts.

// Chunk c of n elements split over N ranks: [chunk_begin(n, N, c), chunk_begin(n, N, c + 1)).
inline size_t chunk_begin(size_t n, int N, int c) {
  return static_cast<size_t>((static_cast<unsigned __int128>(n) * c) / N);
}

// out[i] = parts[0][i] + parts[1][i] + ... + parts[N-1][i], added in exactly that order.
// `out` must not alias parts[1..N-1].
void sum_in_rank_order(const float* const* parts, int N, size_t len, float* out);

// Payload bytes rank r sends (== receives) in the reduce-scatter + all-gather all-reduce
// of n floats: 4 * ((n - |chunk r|) + (N - 1) * |chunk r|). Summed over ranks this is
// N * 2(N-1)/N * 4n exactly; per rank it equals the formula when N divides n.
uint64_t allreduce_bytes_of_rank(size_t n, int N, int r);

}  // namespace sl
