#include "tensor/cuda/cuda_allocator.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "tensor/cuda/cuda_check.h"

namespace sl {

CudaCachingAllocator::~CudaCachingAllocator() {
  // At process exit the runtime may already be shutting down; errors are moot then.
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) cudaFree(p);
}

void* CudaCachingAllocator::allocate(size_t bytes) {
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
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it so the next launch check does not see it
      free_cached_locked();
      e = cudaMalloc(&p, size);
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error("CUDA cudaMalloc of " + std::to_string(size) + " bytes failed: " +
                               cuda_detail::cuda_error_text(e) + "; " + std::to_string(in_use_) +
                               " bytes in use");
    }
  }
  live_.emplace(p, size);
  in_use_ += size;
  return p;
}

void CudaCachingAllocator::release(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end())
    throw std::logic_error("CudaCachingAllocator::release: pointer was not allocated here");
  free_[it->second].push_back(p);
  in_use_ -= it->second;
  cached_ += it->second;
  live_.erase(it);
}

void CudaCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  free_cached_locked();
}

void CudaCachingAllocator::free_cached_locked() {
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) cuda_detail::check_cuda(cudaFree(p), "cudaFree");
  free_.clear();
  cached_ = 0;
}

size_t CudaCachingAllocator::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t CudaCachingAllocator::bytes_cached() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

}  // namespace sl
