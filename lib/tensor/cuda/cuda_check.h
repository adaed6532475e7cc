#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "tensor/device.h"

// Host-side helpers shared by the CUDA backend's sources (not part of its interface).
namespace sl {
namespace cuda_detail {

inline std::string cuda_error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + " failed: " + cuda_error_text(e));
}

// Launch errors (bad configuration, missing kernel image) show up here; errors inside a
// kernel surface at a later call unless CUDA_LAUNCH_BLOCKING=1 makes launches synchronous.
inline void check_launch(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA kernel ") + kernel + " failed: " + cuda_error_text(e));
}

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements. Capped: more blocks than the GPU can hold
// only add scheduling overhead, and the loop covers the rest.
inline unsigned grid_for(size_t n) {
  const size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min<size_t>(std::max<size_t>(blocks, 1), 8192));
}

// Threads per block for kernels that give one block to each row of `cols` elements: about
// four elements per thread, a whole number of warps, at most 1024. Depends only on cols,
// so the reduction tree (and hence every result bit) is the same on every run and GPU.
inline int row_threads(int cols) {
  int t = 32;
  while (t < 1024 && t * 4 < cols) t *= 2;
  return t;
}

// Temporary device memory from the backend's caching allocator, returned on scope exit.
// Safe to give back before queued kernels finish: everything runs on one stream, so the
// next user of the block is ordered after them.
class Scratch {
 public:
  Scratch(Device& dev, size_t bytes) : dev_(dev), p_(dev.alloc(bytes)) {}
  ~Scratch() { dev_.release(p_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as() const { return static_cast<T*>(p_); }

 private:
  Device& dev_;
  void* p_;
};

// Column sums used by sum_rows_acc and layer_norm_backward (cuda_reduce.cu):
//   plain (x, mean, rstd null):  out0[c] += sum_r a[r,c]
//   layer norm:                  out0[c] += sum_r a[r,c] * (x[r,c] - mean[r]) * rstd[r],
//                                out1[c] += sum_r a[r,c]
// Rows are cut into fixed chunks (a function of `rows` only) summed in a fixed order.
void column_sums(Device& dev, int rows, int cols, const float* a, const float* x,
                 const float* mean, const float* rstd, float* out0, float* out1);

// False (with the reason) when this binary holds no kernel image the current GPU can run,
// e.g. built for sm_90 and run on an sm_80 card.
bool kernels_loadable(std::string* why);

}  // namespace cuda_detail
}  // namespace sl
