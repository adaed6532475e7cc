#pragma once
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace sl {

// Size class of a request: at least 512 bytes, then four steps per power of two (waste at
// most 25%), so the varying shapes of token-based batches still reuse blocks. Header-only
// so it is tested without a GPU.
inline size_t cached_block_size(size_t bytes) {
  if (bytes <= 512) return 512;
  size_t base = 512;
  while (base * 2 < bytes) base *= 2;  // base < bytes <= 2 * base
  const size_t step = base / 4;
  return (bytes + step - 1) / step * step;
}

// cudaMalloc / cudaFree behind per-size-class free lists. Training allocates the same
// shapes every step; cudaFree synchronises the device and cudaMalloc is slow, so freed
// blocks are kept for reuse. Giving a block back while kernels that use it are queued is
// safe because the backend issues all work on one stream. Thread-safe.
class CudaCachingAllocator {
 public:
  CudaCachingAllocator() = default;
  ~CudaCachingAllocator();
  CudaCachingAllocator(const CudaCachingAllocator&) = delete;
  CudaCachingAllocator& operator=(const CudaCachingAllocator&) = delete;

  // Throws std::runtime_error (with sizes) when the GPU is out of memory even after the
  // cache was emptied.
  void* allocate(size_t bytes);
  void release(void* p);  // p from allocate(), or nullptr
  void empty_cache();     // cudaFree every cached block

  size_t bytes_in_use() const;
  size_t bytes_cached() const;

 private:
  void free_cached_locked();

  mutable std::mutex mu_;
  std::unordered_map<void*, size_t> live_;                // block -> size class
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  size_t in_use_ = 0, cached_ = 0;
};

}  // namespace sl
