#include "tensor/cuda/cuda_timer.h"

#include <cuda_runtime.h>

#include "tensor/cuda/cuda_check.h"

namespace sl {

using cuda_detail::check_cuda;

CudaEventTimer::CudaEventTimer() {
  cudaEvent_t a, b;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  start_ = a;
  stop_ = b;
}

CudaEventTimer::~CudaEventTimer() {
  if (start_) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  if (stop_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

void CudaEventTimer::start() { check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(start_), 0), "cudaEventRecord"); }
void CudaEventTimer::stop() { check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(stop_), 0), "cudaEventRecord"); }

double CudaEventTimer::seconds() {
  check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize");
  float ms = 0.0f;
  check_cuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)),
             "cudaEventElapsedTime");
  return ms * 1e-3;
}

}  // namespace sl
