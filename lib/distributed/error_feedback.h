#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace sl {

// The residual E_n (PAPER.md): the part of A_n = g_n + E_n that was not sent, P floats,
// starting at 0. TopKCompressor updates it in the same pass that selects and packs S_n;
// the `error` combiner applies it locally and clears it.
class ErrorFeedback {
 public:
  explicit ErrorFeedback(size_t P) : E_(P, 0.0f) {}
  float* data() { return E_.data(); }
  const float* data() const { return E_.data(); }
  size_t size() const { return E_.size(); }
  void clear() { std::fill(E_.begin(), E_.end(), 0.0f); }

 private:
  std::vector<float> E_;
};

}  // namespace sl
