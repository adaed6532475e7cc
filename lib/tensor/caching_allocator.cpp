#include "tensor/caching_allocator.h"

#include <stdexcept>

namespace sl {

CachingAllocator::CachingAllocator(RawAlloc raw_alloc, RawFree raw_free, std::string what,
                                   size_t max_cached_bytes)
    : raw_alloc_(raw_alloc), raw_free_(raw_free), what_(std::move(what)), max_cached_(max_cached_bytes) {}

CachingAllocator::~CachingAllocator() {
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) raw_free_(p);
}

void* CachingAllocator::allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  const size_t size = cached_block_size(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(size);
  void* p = nullptr;
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    cached_ -= size;
  } else {
    p = raw_alloc_(size);
    ++raw_allocs_;
    if (!p) {
      free_cached_locked();
      p = raw_alloc_(size);
      ++raw_allocs_;
    }
    if (!p)
      throw std::runtime_error(what_ + ": allocation of " + std::to_string(size) + " bytes failed; " +
                               std::to_string(in_use_) + " bytes in use");
  }
  live_.emplace(p, size);
  in_use_ += size;
  return p;
}

void CachingAllocator::release(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end()) throw std::logic_error(what_ + ": release of a pointer not allocated here");
  const size_t size = it->second;
  in_use_ -= size;
  live_.erase(it);
  if (cached_ + size > max_cached_) {
    raw_free_(p);
    ++raw_frees_;
    return;
  }
  free_[size].push_back(p);
  cached_ += size;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  free_cached_locked();
}

void CachingAllocator::free_cached_locked() {
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) {
      raw_free_(p);
      ++raw_frees_;
    }
  free_.clear();
  cached_ = 0;
}

size_t CachingAllocator::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t CachingAllocator::bytes_cached() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

uint64_t CachingAllocator::raw_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return raw_allocs_;
}

uint64_t CachingAllocator::raw_frees() const {
  std::lock_guard<std::mutex> lock(mu_);
  return raw_frees_;
}

}  // namespace sl
