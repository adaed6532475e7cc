#include "tensor/profile_table.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <utility>
#include <vector>

namespace sl {

namespace {

void append(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& out, const char* fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  out += line;
}

}  // namespace

std::string profile_table(const ProfilingDevice& prof, int steps, double step_s,
                          double ceiling_gflops) {
  std::string out;
  double kernels = 0;
  for (const auto& b : prof.buckets()) kernels += b.seconds;
  const double per = 1.0 / std::max(1, steps);
  append(out, "%-32s %10s %7s %10s\n", "category", "ms/step", "% step", "calls/step");
  for (int c = 0; c < ProfilingDevice::kCategoryCount; ++c) {
    const auto& b = prof.buckets()[c];
    if (!b.calls) continue;
    append(out, "%-32s %10.2f %6.1f%% %10.0f\n",
           ProfilingDevice::category_name(static_cast<ProfilingDevice::Category>(c)),
           1e3 * b.seconds * per, 100 * b.seconds * per / step_s, b.calls * per);
  }
  append(out, "%-32s %10.2f %6.1f%%\n", "all kernels", 1e3 * kernels * per,
         100 * kernels * per / step_s);
  append(out, "%-32s %10.2f %6.1f%%\n", "outside kernels", 1e3 * (step_s - kernels * per),
         100 * (1 - kernels * per / step_s));
  // The Device methods behind the categories, slowest first (the levers are per method).
  std::vector<std::pair<std::string, ProfilingDevice::Bucket>> by_kernel(prof.kernels().begin(),
                                                                         prof.kernels().end());
  std::sort(by_kernel.begin(), by_kernel.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  append(out, "%-32s %10s %7s %10s\n", "  by kernel", "ms/step", "% step", "calls/step");
  for (const auto& [name, b] : by_kernel) {
    if (b.seconds * per < 1e-3 * step_s) break;  // under 0.1% of the step
    append(out, "  %-30s %10.2f %6.1f%% %10.0f\n", name.c_str(), 1e3 * b.seconds * per,
           100 * b.seconds * per / step_s, b.calls * per);
  }
  double gemm_s = 0;
  for (auto c : {ProfilingDevice::kGemm, ProfilingDevice::kBatchedGemm})
    gemm_s += prof.buckets()[c].seconds;
  if (gemm_s > 0)
    append(out, "%-32s %10.3f GFLOP/step at %.1f GFLOP/s achieved\n", "GEMM work",
           prof.gemm_flops() * per * 1e-9, prof.gemm_flops() / gemm_s * 1e-9);
  if (ceiling_gflops > 0)
    append(out, "%-32s %10.2f %6.1f%%   (%.3f GFLOP/step at %.1f GFLOP/s)\n", "GEMM-only floor",
           1e3 * prof.gemm_flops() * per / (ceiling_gflops * 1e9),
           100 * prof.gemm_flops() * per / (ceiling_gflops * 1e9) / step_s,
           prof.gemm_flops() * per * 1e-9, ceiling_gflops);
  return out;
}

}  // namespace sl
