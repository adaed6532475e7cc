#pragma once
#include <cstddef>
#include <memory>

#include "tensor/caching_allocator.h"

namespace sl {

// How much freed device memory the cache may keep, from cudaMemGetInfo at device creation:
// 7/8 of what was free then. A fixed cap (it was 16 GiB) makes a step whose temporaries exceed
// it give blocks back with cudaFree and take them again with cudaMalloc every step, and both
// synchronise the device. Several processes sharing one GPU (MPI ranks) each keep only what
// they used; when memory runs out the allocator empties its cache and retries.
// Host-only arithmetic (tested without a GPU).
inline size_t cuda_cache_cap(size_t free_bytes) { return free_bytes / 8 * 7; }

// cudaMalloc / cudaFree behind the shared CachingAllocator, keeping at most max_cached_bytes.
// Giving a block back while kernels that use it are queued is safe because the backend
// issues all work on one stream.
std::unique_ptr<CachingAllocator> make_cuda_caching_allocator(size_t max_cached_bytes);

}  // namespace sl
