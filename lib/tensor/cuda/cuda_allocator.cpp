#include "tensor/cuda/cuda_allocator.h"

#include <cuda_runtime.h>

namespace sl {

namespace {
void* cuda_raw_alloc(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so the next launch check does not see it
    return nullptr;
  }
  return p;
}
void cuda_raw_free(void* p) { cudaFree(p); }  // at exit the runtime may be shutting down
}  // namespace

std::unique_ptr<CachingAllocator> make_cuda_caching_allocator() {
  return std::make_unique<CachingAllocator>(cuda_raw_alloc, cuda_raw_free, "CUDA cudaMalloc",
                                            size_t(16) << 30);
}

}  // namespace sl
