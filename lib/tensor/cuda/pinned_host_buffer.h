#pragma once
#include <cstddef>

namespace sl {

// Page-locked host memory (cudaHostAlloc) for copies between the GPU and host-side transports
// (the dense exchange's all-reduce): the DMA engine reads and writes it directly, where a
// pageable buffer is staged through the driver's bounce buffer in chunks. When pinning fails
// (no driver, or the limit on locked memory) it is ordinary memory and pinned() says so.
// Includes no CUDA header.
class PinnedHostBuffer {
 public:
  explicit PinnedHostBuffer(size_t bytes);
  ~PinnedHostBuffer();
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  size_t bytes() const { return bytes_; }
  bool pinned() const { return pinned_; }

 private:
  void* p_ = nullptr;
  size_t bytes_;
  bool pinned_ = false;
};

}  // namespace sl
