// Reductions with a fixed tree: totals (reduce_sum, sum_squares) and column sums
// (sum_rows_acc, layer-norm parameter gradients). No atomics: each level writes partials
// that the next kernel adds in index order, and how the work is cut depends only on the
// sizes, so the result bits never depend on timing or on the GPU model.
#include <algorithm>

#include "tensor/cuda/cuda_check.h"
#include "tensor/cuda/cuda_device.h"
#include "tensor/cuda/cuda_kernel_util.cuh"

namespace sl {

using cuda_detail::block_sum;
using cuda_detail::check_cuda;
using cuda_detail::check_launch;
using cuda_detail::kThreads;
using cuda_detail::Scratch;

namespace {

// Blocks of the first pass: ~8 elements per thread, at most 1024 partials.
unsigned total_blocks(size_t n) {
  const size_t per_block = size_t(kThreads) * 8;
  return unsigned(std::min<size_t>(1024, std::max<size_t>(1, (n + per_block - 1) / per_block)));
}

// Partials in double: sums of squares feed gradient-norm clipping, and double keeps a
// million-element total within float rounding of the exact value.
__global__ void partial_totals_kernel(size_t n, const float* x, bool square, double* part) {
  __shared__ double smem[32];
  double s = 0.0;
  SL_GRID_STRIDE(i, n) {
    const double v = x[i];
    s += square ? v * v : v;
  }
  s = block_sum(s, smem);
  if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// One block adds the partials; writes y[0] (+)= total as float and/or *out = total.
__global__ void finish_total_kernel(int parts, const double* part, float* y, bool acc, double* out) {
  __shared__ double smem[32];
  double s = 0.0;
  for (int i = threadIdx.x; i < parts; i += blockDim.x) s += part[i];
  s = block_sum(s, smem);
  if (threadIdx.x == 0) {
    if (y) y[0] = acc ? y[0] + float(s) : float(s);
    if (out) *out = s;
  }
}

constexpr int kColTile = 32;   // columns per block (threadIdx.x)
constexpr int kRowLanes = 8;   // threads per column (threadIdx.y), striding over rows

int rows_per_chunk(int rows) { return std::max(64, (rows + 1023) / 1024); }

__global__ void column_partials_kernel(int rows, int cols, int chunk_rows, const float* a,
                                       const float* x, const float* mean, const float* rstd,
                                       float* part0, float* part1) {
  __shared__ float s0[kRowLanes][kColTile + 1];
  __shared__ float s1[kRowLanes][kColTile + 1];
  const int c = blockIdx.x * kColTile + threadIdx.x;
  const int r0 = blockIdx.y * chunk_rows, r1 = min(rows, r0 + chunk_rows);
  float acc0 = 0.0f, acc1 = 0.0f;
  if (c < cols) {
    for (int r = r0 + threadIdx.y; r < r1; r += kRowLanes) {
      const int64_t at = int64_t(r) * cols + c;
      const float av = a[at];
      if (x) {
        const float xhat = (x[at] - mean[r]) * rstd[r];
        acc0 += av * xhat;
        acc1 += av;
      } else {
        acc0 += av;
      }
    }
  }
  s0[threadIdx.y][threadIdx.x] = acc0;
  s1[threadIdx.y][threadIdx.x] = acc1;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t0 = 0.0f, t1 = 0.0f;
    for (int k = 0; k < kRowLanes; ++k) {
      t0 += s0[k][threadIdx.x];
      t1 += s1[k][threadIdx.x];
    }
    part0[int64_t(blockIdx.y) * cols + c] = t0;
    if (part1) part1[int64_t(blockIdx.y) * cols + c] = t1;
  }
}

__global__ void column_finish_kernel(int cols, int chunks, const float* part0, const float* part1,
                                     float* out0, float* out1) {
  SL_GRID_STRIDE(c, size_t(cols)) {
    float t0 = 0.0f, t1 = 0.0f;
    for (int k = 0; k < chunks; ++k) {
      t0 += part0[int64_t(k) * cols + c];
      if (part1) t1 += part1[int64_t(k) * cols + c];
    }
    out0[c] += t0;
    if (out1) out1[c] += t1;
  }
}

}  // namespace

namespace cuda_detail {
void column_sums(Device& dev, int rows, int cols, const float* a, const float* x,
                 const float* mean, const float* rstd, float* out0, float* out1) {
  if (rows <= 0 || cols <= 0) return;
  const int chunk_rows = rows_per_chunk(rows);
  const int chunks = (rows + chunk_rows - 1) / chunk_rows;
  const size_t part_elems = size_t(chunks) * cols;
  Scratch part(dev, part_elems * (out1 ? 2 : 1) * sizeof(float));
  float* part0 = part.as<float>();
  float* part1 = out1 ? part0 + part_elems : nullptr;
  const dim3 grid((cols + kColTile - 1) / kColTile, chunks), block(kColTile, kRowLanes);
  column_partials_kernel<<<grid, block>>>(rows, cols, chunk_rows, a, x, mean, rstd, part0, part1);
  check_launch("column_partials (sum_rows_acc / layer_norm_backward)");
  column_finish_kernel<<<cuda_detail::grid_for(size_t(cols)), kThreads>>>(cols, chunks, part0,
                                                                          part1, out0, out1);
  check_launch("column_finish (sum_rows_acc / layer_norm_backward)");
}
}  // namespace cuda_detail

void CudaDevice::reduce_sum(size_t n, const float* x, float* y, bool accumulate) {
  if (!n) {
    if (!accumulate) fill(1, 0.0f, y);
    return;
  }
  const unsigned blocks = total_blocks(n);
  Scratch part(*this, blocks * sizeof(double));
  partial_totals_kernel<<<blocks, kThreads>>>(n, x, false, part.as<double>());
  check_launch("reduce_sum (partials)");
  finish_total_kernel<<<1, kThreads>>>(int(blocks), part.as<double>(), y, accumulate, nullptr);
  check_launch("reduce_sum (finish)");
}

double CudaDevice::sum_squares(size_t n, const float* x) {
  if (!n) return 0.0;
  const unsigned blocks = total_blocks(n);
  Scratch part(*this, (blocks + 1) * sizeof(double));
  double* out = part.as<double>() + blocks;
  partial_totals_kernel<<<blocks, kThreads>>>(n, x, true, part.as<double>());
  check_launch("sum_squares (partials)");
  finish_total_kernel<<<1, kThreads>>>(int(blocks), part.as<double>(), nullptr, false, out);
  check_launch("sum_squares (finish)");
  double total = 0.0;
  check_cuda(cudaMemcpy(&total, out, sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (sum_squares)");
  return total;
}

void CudaDevice::sum_rows_acc(int rows, int cols, const float* x, float* y) {
  cuda_detail::column_sums(*this, rows, cols, x, nullptr, nullptr, nullptr, y, nullptr);
}

}  // namespace sl
