// Achieved GFLOP/s of CpuDevice::gemm / gemm_batched (OpenBLAS) on 1024^3 and on the small
// Transformer's actual products (batch 64 x 24 tokens = 1536 rows, d_model 256, ff 1024,
// vocab 8000, 4 heads of 64), forward and backward, with 1 and 2 BLAS threads.
// Usage: bench_gemm [--reps N] [--threads 1,2] [--ceiling]
//   --ceiling: only the 1024^3 product (the sgemm ceiling), one line per thread count, for
//   comparing BLAS libraries (SL_BLAS / OPENBLAS_CORETYPE pick them; bench/run-all does).
// The first line names the BLAS in use (library, version, kernels, CPU).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/counter_rng.h"
#include "common/timer.h"
#include "tensor/cpu/blas_library.h"
#include "tensor/tensor.h"

namespace {

struct Case {
  const char* name;
  bool ta, tb;
  int M, N, K, batch;
};

// Transformer products as ops::matmul / ops::bmm issue them (see ops_products.cpp):
// forward C = A B; backward dA = dC B^T (NT), dB = A^T dC (TN).
const Case kCases[] = {
    {"square 1024^3", false, false, 1024, 1024, 1024, 1},
    {"qkv/out proj fwd", false, false, 1536, 256, 256, 1},
    {"qkv/out proj dA", false, true, 1536, 256, 256, 1},
    {"qkv/out proj dW", true, false, 256, 256, 1536, 1},
    {"ff1 fwd", false, false, 1536, 1024, 256, 1},
    {"ff1 dA", false, true, 1536, 256, 1024, 1},
    {"ff1 dW", true, false, 256, 1024, 1536, 1},
    {"ff2 fwd", false, false, 1536, 256, 1024, 1},
    {"ff2 dA", false, true, 1536, 1024, 256, 1},
    {"ff2 dW", true, false, 1024, 256, 1536, 1},
    {"output fwd", false, false, 1536, 8000, 256, 1},
    {"output fwd tied (B^T)", false, true, 1536, 8000, 256, 1},
    {"output dA", false, true, 1536, 256, 8000, 1},
    {"output dW", true, false, 256, 8000, 1536, 1},
    {"output dW tied", true, false, 8000, 256, 1536, 1},
    {"attn QK^T (256x)", false, true, 24, 24, 64, 256},
    {"attn PV (256x)", false, false, 24, 64, 24, 256},
    {"attn dP = dO V^T", false, true, 24, 24, 64, 256},
    {"attn dV = P^T dO", true, false, 24, 64, 24, 256},
    {"attn dQ = dS K", false, false, 24, 64, 24, 256},
    {"attn dK = dS^T Q", true, false, 24, 64, 24, 256},
};

sl::Tensor random_tensor(sl::Device& dev, int64_t n, uint64_t stream) {
  sl::CounterRng rng(1, stream);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = rng.uniform() - 0.5f;
  return sl::Tensor::from_host(dev, sl::Shape{n}, v);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  bool ceiling_only = false;
  std::vector<int> threads = {1, 2};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads.clear();
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        threads.push_back(std::max(1, std::atoi(t)));
    } else if (!std::strcmp(argv[i], "--ceiling")) {
      ceiling_only = true;
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--threads 1,2] [--ceiling]\n", argv[0]);
      return 2;
    }
  }
  sl::Device& dev = sl::cpu_device();
  std::printf("# BLAS: %s\n", sl::blas::describe().c_str());
  std::printf("%-24s %2s %5s %5s %5s %5s %3s %9s %9s %9s\n", "product", "op", "batch", "M", "N",
              "K", "thr", "best ms", "best GF/s", "med GF/s");
  for (const Case& c : kCases) {
    if (ceiling_only && c.batch != 1) break;
    const int64_t sa = static_cast<int64_t>(c.M) * c.K, sb = static_cast<int64_t>(c.K) * c.N,
                  sc = static_cast<int64_t>(c.M) * c.N;
    sl::Tensor a = random_tensor(dev, sa * c.batch, 1), b = random_tensor(dev, sb * c.batch, 2);
    sl::Tensor y = sl::Tensor::zeros(dev, sl::Shape{sc * c.batch});
    const double flops = 2.0 * c.M * c.N * c.K * c.batch;
    for (int t : threads) {
      sl::set_blas_threads(t);
      auto run = [&] {
        if (c.batch == 1)
          dev.gemm(c.ta, c.tb, c.M, c.N, c.K, 1.0f, a.f32(), b.f32(), 0.0f, y.f32());
        else
          dev.gemm_batched(c.ta, c.tb, c.M, c.N, c.K, 1.0f, a.f32(), sa, b.f32(), sb, 0.0f,
                           y.f32(), sc, c.batch);
      };
      run();  // warm-up: page faults, OpenBLAS buffers
      std::vector<double> secs;
      for (int r = 0; r < reps; ++r) {
        const double t0 = sl::wall_seconds();
        run();
        secs.push_back(sl::wall_seconds() - t0);
      }
      std::sort(secs.begin(), secs.end());
      const double best = secs.front(), med = secs[secs.size() / 2];
      std::printf("%-24s %c%c %5d %5d %5d %5d %3d %9.3f %9.1f %9.1f\n", c.name, c.ta ? 'T' : 'N',
                  c.tb ? 'T' : 'N', c.batch, c.M, c.N, c.K, t, best * 1e3, flops / best * 1e-9,
                  flops / med * 1e-9);
      std::fflush(stdout);
    }
    if (ceiling_only) break;
  }
  return 0;
}
