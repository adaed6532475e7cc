#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace sl {

// Size class of a request: at least 512 bytes, then four steps per power of two (waste at
// most 25%), so the varying shapes of token-based batches still reuse blocks.
inline size_t cached_block_size(size_t bytes) {
  if (bytes <= 512) return 512;
  size_t base = 512;
  while (base * 2 < bytes) base *= 2;  // base < bytes <= 2 * base
  const size_t step = base / 4;
  return (bytes + step - 1) / step * step;
}

// Raw allocations behind per-size-class free lists. A training step allocates the same
// shapes every step; fresh memory is expensive on both backends (cudaMalloc synchronises;
// glibc maps blocks over 32 MB anew and the kernel zero-fills every page on first touch),
// so freed blocks are kept for reuse. Thread-safe (simulated nodes are threads).
// At most `max_cached_bytes` are kept: token-based batches change shape every step, so an
// unbounded cache keeps a block of every size class ever used (a 4-node simulated run once
// grew to 21 GB that way); a block released beyond the cap goes back to the system.
class CachingAllocator {
 public:
  using RawAlloc = void* (*)(size_t bytes);  // nullptr when out of memory
  using RawFree = void (*)(void* p);
  CachingAllocator(RawAlloc raw_alloc, RawFree raw_free, std::string what, size_t max_cached_bytes);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Throws std::bad_alloc-like std::runtime_error naming sizes when out of memory even after
  // the cache was emptied.
  void* allocate(size_t bytes);
  void release(void* p);  // p from allocate(), or nullptr
  void empty_cache();     // frees every cached block

  size_t bytes_in_use() const;
  size_t bytes_cached() const;
  size_t max_cached_bytes() const { return max_cached_; }
  // Calls of raw_alloc / raw_free so far: in a steady training loop both stop growing once the
  // cache holds every size class a step uses (each call is a cudaMalloc / cudaFree on a GPU,
  // and those synchronise the device).
  uint64_t raw_allocations() const;
  uint64_t raw_frees() const;

 private:
  void free_cached_locked();

  RawAlloc raw_alloc_;
  RawFree raw_free_;
  std::string what_;
  size_t max_cached_;
  mutable std::mutex mu_;
  std::unordered_map<void*, size_t> live_;                // block -> size class
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  size_t in_use_ = 0, cached_ = 0;
  uint64_t raw_allocs_ = 0, raw_frees_ = 0;
};

}  // namespace sl
