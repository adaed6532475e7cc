#pragma once
#include <vector>

#include "tensor/tensor.h"

namespace sl {

// Host view of a device buffer for the distributed layer, which works on host memory.
// On the CPU backend it is the buffer itself (no copy).
class HostMirror {
 public:
  explicit HostMirror(const Tensor& t) : t_(t), cpu_(!t.device().is_cuda()) {
    if (!cpu_) host_.resize(static_cast<size_t>(t.numel()));
  }
  float* pull() {
    if (cpu_) return t_.f32();
    t_.device().to_host(host_.data(), t_.f32(), host_.size() * sizeof(float));
    return host_.data();
  }
  void push() {
    if (!cpu_) t_.device().from_host(t_.f32(), host_.data(), host_.size() * sizeof(float));
  }

 private:
  Tensor t_;
  bool cpu_;
  std::vector<float> host_;
};

}  // namespace sl
