#pragma once
#include <memory>

#include "tensor/caching_allocator.h"

namespace sl {

// cudaMalloc / cudaFree behind the shared CachingAllocator. Giving a block back while
// kernels that use it are queued is safe because the backend issues all work on one stream.
std::unique_ptr<CachingAllocator> make_cuda_caching_allocator();

}  // namespace sl
