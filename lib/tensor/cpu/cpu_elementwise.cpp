// Element-wise kernels and reductions of the CPU backend. Loops are plain and contiguous
// so g++ -O3 vectorises them; reductions keep several independent partial sums in a fixed
// order (vectorisable without -ffast-math, and deterministic). Large ones are split over the
// kernel threads (cpu_threads.h) by elements, rows or, for sums over rows, by columns.
// clang-format off (must stay the first include)
#include "tensor/cpu/cpu_vectorize.h"  // first: sets the vectorisation options
// clang-format on
#include <algorithm>
#include <cmath>

#include "tensor/cpu/cpu_device.h"
#include "tensor/cpu/cpu_math.h"
#include "tensor/cpu/cpu_threads.h"

namespace sl {

void CpuDevice::fill(size_t n, float value, float* __restrict y) {
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) y[i] = value;
  });
}

void CpuDevice::axpby(size_t n, float a, const float* x, float b, float* y) {
  // BLAS convention: b == 0 overwrites, so y may start uninitialised (NaN * 0 would stay NaN).
  // x may alias y (in-place scaling), so no restrict here.
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t lo, size_t hi) {
    if (b == 0.0f) {
      for (size_t i = lo; i < hi; ++i) y[i] = a * x[i];
    } else if (b == 1.0f) {
      for (size_t i = lo; i < hi; ++i) y[i] += a * x[i];
    } else {
      for (size_t i = lo; i < hi; ++i) y[i] = a * x[i] + b * y[i];
    }
  });
}

void CpuDevice::mul(size_t n, const float* x1, const float* x2, float* y, bool accumulate) {
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t lo, size_t hi) {
    if (accumulate) {
      for (size_t i = lo; i < hi; ++i) y[i] += x1[i] * x2[i];
    } else {
      for (size_t i = lo; i < hi; ++i) y[i] = x1[i] * x2[i];
    }
  });
}

void CpuDevice::add_bias(int rows, int cols, const float* x, const float* bias, float* y) {
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
      for (int c = 0; c < cols; ++c) yr[c] = xr[c] + bias[c];
    }
  });
}

void CpuDevice::sum_rows_acc(int rows, int cols, const float* __restrict x, float* __restrict y) {
  // Row by row into y: the inner loop is contiguous and the order fixed. Threads split the
  // columns (in blocks of 64), so every y[c] still sums its rows in order.
  const size_t blocks = (static_cast<size_t>(cols) + 63) / 64;
  const size_t grain =
      std::max<size_t>(1, cpu::kElementGrain / (64 * static_cast<size_t>(std::max(rows, 1))));
  cpu::parallel_for(blocks, grain, [=](size_t lo, size_t hi) {
    const int c0 = static_cast<int>(lo * 64), c1 = std::min(cols, static_cast<int>(hi * 64));
    for (int r = 0; r < rows; ++r) {
      const float* __restrict xr = x + static_cast<size_t>(r) * cols;
      for (int c = c0; c < c1; ++c) y[c] += xr[c];
    }
  });
}

void CpuDevice::mul_rows(int rows, int cols, const float* x, const float* m, float* y,
                         bool accumulate) {
  cpu::parallel_for(rows, cpu::row_grain(cols), [=](size_t lo, size_t hi) {
    for (size_t r = lo; r < hi; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
      const float s = m[r];
      if (accumulate) {
        for (int c = 0; c < cols; ++c) yr[c] += xr[c] * s;
      } else {
        for (int c = 0; c < cols; ++c) yr[c] = xr[c] * s;
      }
    }
  });
}

// The serial loops, each over [lo, hi): the threaded kernels call them so that every loop is
// compiled as a plain function of its pointers (a loop over a lambda's captures stays scalar).
namespace {
void unary_range(Unary op, size_t lo, size_t hi, const float* x, float* y) {
  switch (op) {
    case Unary::Relu:
      for (size_t i = lo; i < hi; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      break;
    case Unary::Tanh:
      for (size_t i = lo; i < hi; ++i) y[i] = cpu::tanh(x[i]);
      break;
    case Unary::Sigmoid:
      for (size_t i = lo; i < hi; ++i) y[i] = cpu::sigmoid(x[i]);
      break;
  }
}
}  // namespace

void CpuDevice::unary(Unary op, size_t n, const float* x, float* y) {
  cpu::parallel_for(n, cpu::kElementGrain,
                    [=](size_t lo, size_t hi) { unary_range(op, lo, hi, x, y); });
}

void CpuDevice::unary_backward(Unary op, size_t n, const float* __restrict x,
                               const float* __restrict y, const float* __restrict dy,
                               float* __restrict dx) {
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t lo, size_t hi) {
    switch (op) {
      case Unary::Relu:
        for (size_t i = lo; i < hi; ++i) {
          const float d = dy[i];  // loaded unconditionally: the select stays branch-free
          dx[i] += x[i] > 0.0f ? d : 0.0f;
        }
        break;
      case Unary::Tanh:
        for (size_t i = lo; i < hi; ++i) dx[i] += dy[i] * (1.0f - y[i] * y[i]);
        break;
      case Unary::Sigmoid:
        for (size_t i = lo; i < hi; ++i) dx[i] += dy[i] * y[i] * (1.0f - y[i]);
        break;
    }
  });
}

void CpuDevice::reduce_sum(size_t n, const float* x, float* y, bool accumulate) {
  const double s = cpu::sum(n, x);
  y[0] = static_cast<float>(accumulate ? y[0] + s : s);
}

void CpuDevice::broadcast_scalar_acc(size_t n, float alpha, const float* dy, float* dx) {
  const float v = alpha * dy[0];
  cpu::parallel_for(n, cpu::kElementGrain, [=](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) dx[i] += v;
  });
}

double CpuDevice::sum_squares(size_t n, const float* x) { return cpu::sum_squares(n, x); }

}  // namespace sl
