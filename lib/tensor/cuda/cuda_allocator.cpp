#include "tensor/cuda/cuda_allocator.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "tensor/cuda/cuda_check.h"

namespace sl {

namespace {
// nullptr only when the device is out of memory (the caching allocator then empties its
// cache, retries and reports out-of-memory). Any other error -- most often a sticky fault of
// an earlier kernel (illegal address, ...) that every later call returns -- is thrown as
// itself: reporting it as out-of-memory would send the user after the wrong problem.
void* cuda_raw_alloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaSuccess) return p;
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it so the next launch check does not see it
    return nullptr;
  }
  throw std::runtime_error("CUDA cudaMalloc of " + std::to_string(bytes) +
                           " bytes failed, not for lack of memory: " +
                           cuda_detail::cuda_error_text(e) +
                           " (a sticky error is an earlier kernel's fault; rerun with "
                           "CUDA_LAUNCH_BLOCKING=1 to find it)");
}
void cuda_raw_free(void* p) { cudaFree(p); }  // at exit the runtime may be shutting down
}  // namespace

std::unique_ptr<CachingAllocator> make_cuda_caching_allocator(size_t max_cached_bytes) {
  return std::make_unique<CachingAllocator>(
      cuda_raw_alloc, cuda_raw_free, "CUDA cudaMalloc (out of device memory)", max_cached_bytes);
}

}  // namespace sl
