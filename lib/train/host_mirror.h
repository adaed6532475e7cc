#pragma once
#include <vector>

#include "tensor/tensor.h"

namespace sl {

// Host view of a device buffer for the distributed layer, which works on host memory.
// On the CPU backend it is the buffer itself (no copy). On CUDA the host copy is allocated at
// the first pull(): with the device-resident exchange (DeviceDistributedStrategy) the
// trainer's four mirrors (gradient, parameters, Adam's moments) are never pulled, and four
// copies of P floats would be ~1 GB per rank at the paper's model sizes.
class HostMirror {
 public:
  explicit HostMirror(const Tensor& t) : t_(t), cpu_(!t.device().is_cuda()) {}
  float* pull() {
    if (cpu_) return t_.f32();
    host_.resize(static_cast<size_t>(t_.numel()));
    t_.device().to_host(host_.data(), t_.f32(), host_.size() * sizeof(float));
    return host_.data();
  }
  void push() {
    if (!cpu_) t_.device().from_host(t_.f32(), host_.data(), host_.size() * sizeof(float));
  }
  // Bytes of host memory this mirror holds (0 until the first pull on a GPU).
  size_t host_bytes() const { return host_.capacity() * sizeof(float); }

 private:
  Tensor t_;
  bool cpu_;
  std::vector<float> host_;
};

}  // namespace sl
