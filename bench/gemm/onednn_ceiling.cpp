// The sgemm ceiling of oneDNN's dnnl_sgemm (Debian's libdnnl), for bench/run-all's table of BLAS
// candidates (issue 28): 1024^3, row-major, best of --reps, on the threads oneDNN's runtime
// gives it (OMP_NUM_THREADS). Prints one line like bench_gemm --ceiling.
//   onednn_ceiling [--reps N]
#include <dnnl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/timer.h"

int main(int argc, char** argv) {
  int reps = 7;
  if (argc == 3 && !std::strcmp(argv[1], "--reps")) reps = std::max(1, std::atoi(argv[2]));
  const int n = 1024;
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  const dnnl_version_t* v = dnnl_version();
  std::printf("# BLAS: oneDNN %d.%d.%d dnnl_sgemm (%s)\n", v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "threads");
  double best = 1e9;
  for (int r = 0; r <= reps; ++r) {
    const double t0 = sl::wall_seconds();
    if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n) != dnnl_success) {
      std::fprintf(stderr, "onednn_ceiling: dnnl_sgemm failed\n");
      return 1;
    }
    if (r > 0) best = std::min(best, sl::wall_seconds() - t0);  // r = 0: warm-up
  }
  const char* omp = std::getenv("OMP_NUM_THREADS");
  std::printf("%-24s %2s %5d %5d %5d %5d %3s %9.3f %9.1f\n", "square 1024^3", "NN", 1, n, n, n,
              omp ? omp : "?", best * 1e3, 2.0 * n * n * n / best * 1e-9);
  return 0;
}
