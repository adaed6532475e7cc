#pragma once
// Host-side helpers for the kernel tests: random data and device round trips.
#include <vector>

#include "common/counter_rng.h"
#include "tensor/tensor.h"

namespace sl::testing {

inline std::vector<float> random_values(size_t n, uint64_t stream, float scale = 1.0f) {
  CounterRng rng(77, stream);
  std::vector<float> v(n);
  for (float& x : v) x = (rng.uniform() * 2.0f - 1.0f) * scale;
  return v;
}

// A device copy of host values that lives as long as the returned tensor.
inline Tensor on_device(Device& dev, const std::vector<float>& v) {
  return Tensor::from_host(dev, Shape{static_cast<int64_t>(v.size())}, v);
}

}  // namespace sl::testing
