#pragma once
// The CPU kernels' own worker threads (besides OpenBLAS's): large element-wise and row-wise
// kernels are split into contiguous chunks, one per thread. Every chunk computes exactly what
// the serial loop would for its elements, so results do not depend on the thread count.
#include <cstddef>
#include <type_traits>

namespace sl::cpu {

// Threads the kernels use (the caller + n-1 workers); set together with OpenBLAS's by
// set_blas_threads. 1 until then (tests and tools that never set it stay serial).
void set_kernel_threads(int n);
int kernel_threads();

// fn(begin, end) over [0, n) in contiguous chunks of at least `grain` items, run by the
// caller and the workers; returns when all are done. Serial when n < 2 grain, with one
// thread, or when called from inside another parallel_for or from a second thread meanwhile.
struct RangeFn {  // a borrowed callable (no allocation per kernel call, unlike std::function)
  void* object;
  void (*call)(void* object, size_t begin, size_t end);
};
void parallel_for(size_t n, size_t grain, RangeFn fn);
template <class F>
void parallel_for(size_t n, size_t grain, F&& fn) {
  using T = std::remove_reference_t<F>;
  parallel_for(n, grain,
               RangeFn{const_cast<void*>(static_cast<const void*>(&fn)),
                       [](void* o, size_t b, size_t e) { (*static_cast<T*>(o))(b, e); }});
}

// Items below which a memory-bound kernel is not worth splitting (waking a worker costs a
// few microseconds; 32K floats take about that long).
constexpr size_t kElementGrain = 32768;
// Rows of `cols` floats per chunk so that a chunk holds about kElementGrain floats.
inline size_t row_grain(size_t cols) {
  return cols >= kElementGrain ? 1 : kElementGrain / (cols ? cols : 1);
}

}  // namespace sl::cpu
