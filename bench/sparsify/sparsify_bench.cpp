// Times gradient dropping at rho = 0.99 (top 1%) on gradient-sized float buffers:
//   exact / sampled threshold + error feedback + packing (TopKCompressor + an encoding),
//   std::nth_element alone on |A| (what a plain exact selection costs before any packing),
//   one memcpy of the buffer (the floor any pass over it pays).
// Single thread. GB/s is the gradient buffer (4P bytes) per second. With --torch-json
// (written by torch_topk.py --json) it adds torch.topk's time and the speed-up over it.
//
//   bench_sparsify [--sizes 7600000,60000000] [--reps 5] [--torch-json torch.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/counter_rng.h"
#include "common/timer.h"
#include "distributed/pair_encoding.h"
#include "distributed/top_k_compressor.h"

namespace {

// Heavy-tailed like a real gradient: per-block scales spanning several decades.
std::vector<float> gradient_like(size_t P) {
  std::vector<float> g(P);
  sl::CounterRng rng(1, 0);
  float scale = 1;
  for (size_t i = 0; i < P; ++i) {
    if (i % 4096 == 0) scale = std::exp(2.0f * rng.normal()) * 1e-3f;
    const float u = sl::counter_uniform(2, 0, i) * 2.0f - 1.0f;  // cheap, heavy enough
    g[i] = scale * u * std::fabs(u) * (1.0f + 8.0f * (sl::counter_hash(3, 0, i) % 97 == 0));
  }
  return g;
}

// Median wall milliseconds of `reps` runs of `op`; `setup` runs untimed before each.
double median_ms(int reps, const std::function<void()>& setup, const std::function<void()>& op) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    setup();
    const double t0 = sl::wall_seconds();
    op();
    t.push_back((sl::wall_seconds() - t0) * 1e3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<size_t> parse_sizes(const std::string& s) {
  std::vector<size_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoull(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {7600000, 60000000};
  int reps = 5;
  std::map<size_t, double> torch_ms;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--sizes" && a + 1 < argc) {
      sizes = parse_sizes(argv[++a]);
    } else if (arg == "--reps" && a + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--torch-json" && a + 1 < argc) {
      std::ifstream f(argv[++a]);
      const nlohmann::json j = nlohmann::json::parse(f);
      for (auto it = j["topk_ms"].begin(); it != j["topk_ms"].end(); ++it)
        torch_ms[std::stoull(it.key())] = it.value().get<double>();
    } else {
      std::fprintf(stderr, "usage: %s [--sizes N,N] [--reps R] [--torch-json FILE]\n", argv[0]);
      return 2;
    }
  }
  const double rho = 0.99;
  std::printf("gradient dropping rho=%.2f, single thread, median of %d\n", rho, reps);
  std::printf("%-11s %-48s %9s %8s %9s %10s %9s\n", "P", "operation", "ms", "GB/s", "x memcpy",
              "pairs", "B/pair");
  for (size_t P : sizes) {
    const std::vector<float> g = gradient_like(P);
    std::vector<float> dst(P), mag(P);
    sl::ErrorFeedback E(P);
    std::vector<sl::SparsePair> S;
    std::vector<uint8_t> wire;
    const double gb = 4.0 * P / 1e9;
    auto row = [&](const char* what, double ms, double memcpy_ms, long long pairs, double bpp) {
      std::printf("%-11zu %-48s %9.2f %8.2f %9.2f", P, what, ms, gb / (ms * 1e-3), ms / memcpy_ms);
      if (pairs >= 0) std::printf(" %10lld %9.2f", pairs, bpp);
      std::printf("\n");
    };
    const double memcpy_ms = median_ms(
        reps, [] {}, [&] { std::memcpy(dst.data(), g.data(), 4 * P); });
    row("memcpy of the buffer", memcpy_ms, memcpy_ms, -1, 0);

    const size_t k = static_cast<size_t>(std::llround((1 - rho) * P));
    const double nth_ms = median_ms(
        reps,
        [&] {
          for (size_t i = 0; i < P; ++i) mag[i] = std::fabs(g[i]);
        },
        [&] {
          std::nth_element(mag.begin(), mag.begin() + (k - 1), mag.end(), std::greater<float>());
        });
    row("std::nth_element on |A| (alone)", nth_ms, memcpy_ms, -1, 0);

    double exact_ms = 0;
    for (auto mode : {sl::ThresholdMode::Exact, sl::ThresholdMode::Sampled})
      for (auto enc : {sl::PairEncodingKind::Pairs32, sl::PairEncodingKind::DeltaVarint}) {
        sl::TopKCompressor c(mode, 100000);
        auto encoding = sl::make_pair_encoding(enc);
        E.clear();
        sl::CompressResult r;
        const double ms = median_ms(
            reps, [] {},
            [&] {
              r = c.compress(g.data(), E, rho, S);
              encoding->encode(S, wire);
            });
        if (mode == sl::ThresholdMode::Exact && enc == sl::PairEncodingKind::Pairs32) exact_ms = ms;
        const std::string what =
            std::string(mode == sl::ThresholdMode::Exact ? "exact" : "sampled") +
            " top-1% + error feedback + " + encoding->name();
        row(what.c_str(), ms, memcpy_ms, static_cast<long long>(r.k_selected),
            double(wire.size()) / r.k_selected);
      }
    if (torch_ms.count(P)) {
      row("torch.topk(|x|, k) (torch_topk.py)", torch_ms[P], memcpy_ms, -1, 0);
      std::printf("%-11zu %-48s %9.1fx\n", P, "speed-up of exact+pairs32 over torch.topk",
                  torch_ms[P] / exact_ms);
    }
  }
  return 0;
}
