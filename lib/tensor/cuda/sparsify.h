#pragma once
// Device-resident gradient dropping (CUDA backend): the steps of TopKCompressor and of the
// rank-order sum of G as kernels on a CudaDevice, so that the gradient, the residual E_n and
// the selection stay on the GPU and only the (index, value) pairs cross to the host for MPI.
// The index arithmetic is in sparsify_plan.h (host-callable, checked by a CPU test in CI).
// All pointers are device pointers of `dev`, which must be the CUDA device.
#include <cstdint>

#include "tensor/cuda/sparsify_plan.h"
#include "tensor/device.h"

namespace sl {
namespace sparsify {

struct DeviceSelection {
  uint32_t tau_key = 0;     // abs_key of tau_n: abs_key(A_i) >= tau_key is sent
  uint64_t k_selected = 0;  // pairs written
};

// A = g + E into E; tau_key = the k-th largest abs_key of A (sample_size == 0 or >= P:
// exact, over all P values) or of the strided sample of sample_size values (k counted in
// the sample); pairs[0 .. k_selected) = S_n in increasing index; E := 0 where sent.
// `pairs` holds P pairs. 1 <= k <= (sample or P). P <= 2^32. Synchronises (reads the
// radix histograms and the pair count back).
DeviceSelection compress(Device& dev, const float* g, float* E, uint64_t P, uint64_t k,
                         uint64_t sample_size, DevicePair* pairs);

// G[pairs[j].index] += sign * pairs[j].value for j < n; indices must be distinct and < P
// (checked on the host when decoding). One launch: call once per rank, in rank order.
void scatter_add(Device& dev, const DevicePair* pairs, uint64_t n, float sign, float* G);

}  // namespace sparsify
}  // namespace sl
