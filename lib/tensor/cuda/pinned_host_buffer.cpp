#include "tensor/cuda/pinned_host_buffer.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <new>

namespace sl {

PinnedHostBuffer::PinnedHostBuffer(size_t bytes) : bytes_(bytes) {
  if (!bytes) return;
  if (cudaHostAlloc(&p_, bytes, cudaHostAllocDefault) == cudaSuccess) {
    pinned_ = true;
    return;
  }
  cudaGetLastError();  // not sticky; keep it from surfacing at the next launch check
  p_ = std::malloc(bytes);
  if (!p_) throw std::bad_alloc();
}

PinnedHostBuffer::~PinnedHostBuffer() {
  if (!p_) return;
  if (pinned_)
    cudaFreeHost(p_);  // at exit the runtime may be shutting down: no check
  else
    std::free(p_);
}

}  // namespace sl
