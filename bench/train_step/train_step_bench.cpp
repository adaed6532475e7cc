// Seconds per training step (forward + backward + Adam) of the small Transformer or the RNN
// at fixed shapes: --size bench (default; issue 6's: vocab 8000, batch 64 x 24 source and 24
// target tokens, configs/small's models) or --size small-suite (configs/small/suite's models:
// Transformer d 64, ff 256, 2+2 layers; RNN emb 64, enc 64, dec 128; vocab 2000, batch
// 32 x 24). Prints one JSON line: median/best seconds per step, target tokens/s, GFLOP/s
// (Transformer: GEMM flops counted analytically, forward x3 for the backward), the 1024^3
// sgemm ceiling measured in this process, and peak RSS (getrusage).
// --profile also prints, on stderr, kernel time per category per step (ProfilingDevice)
// next to the GEMM-only floor (the step's GEMM flops at the sgemm ceiling) and the time
// outside kernels (autograd, graph building, host work).
//   bench_train_step --model transformer|rnn [--size bench|small-suite] [--steps N]
//                    [--warmup N] [--threads N] [--profile]
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/counter_rng.h"
#include "common/timer.h"
#include "models/seq2seq_model.h"
#include "tensor/cpu/blas_library.h"
#include "tensor/profile_table.h"
#include "train/adam.h"

namespace {

int kB = 64, kS = 24, kT = 24, kV = 8000;

// configs/small/suite's model shapes, batch ~800 target tokens.
void use_small_suite_shapes(sl::ModelConfig& cfg) {
  kB = 32;
  kV = 2000;
  cfg.transformer.d_model = 64;
  cfg.transformer.ff = 256;
  cfg.transformer.encoder_layers = cfg.transformer.decoder_layers = 2;
  cfg.rnn.emb_dim = 64;
  cfg.rnn.enc_dim = 64;
  cfg.rnn.dec_dim = 128;
}

double transformer_flops(const sl::TransformerConfig& c) {
  const double Ns = kB * kS, Nt = kB * kT, D = c.d_model, F = c.ff;
  const double enc = 8 * Ns * D * D + 4 * kB * double(kS) * kS * D + 4 * Ns * D * F;
  const double dec = 8 * Nt * D * D + 4 * kB * double(kT) * kT * D                     // self
                     + 4 * Nt * D * D + 4 * Ns * D * D + 4 * kB * double(kT) * kS * D  // cross
                     + 4 * Nt * D * F;
  const double out = 2 * Nt * D * kV;
  return 3 * (c.encoder_layers * enc + c.decoder_layers * dec + out);
}

double sgemm_ceiling(int reps) {
  sl::Device& dev = sl::cpu_device();
  const int n = 1024;
  sl::Tensor a = sl::Tensor::zeros(dev, sl::Shape{n * n}),
             y = sl::Tensor::zeros(dev, sl::Shape{n * n});
  a.fill(0.5f);
  dev.gemm(false, false, n, n, n, 1.0f, a.f32(), a.f32(), 0.0f, y.f32());
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = sl::wall_seconds();
    dev.gemm(false, false, n, n, n, 1.0f, a.f32(), a.f32(), 0.0f, y.f32());
    best = std::min(best, sl::wall_seconds() - t0);
  }
  return 2.0 * n * n * n / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = "transformer", size = "bench";
  int steps = 10, warmup = 2, threads = 2;
  bool profile = false, shapes = false;  // --profile-shapes: GEMM time by shape too
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--model") && i + 1 < argc)
      model = argv[++i];
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc)
      warmup = std::max(0, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--size") && i + 1 < argc)
      size = argv[++i];
    else if (!std::strcmp(argv[i], "--profile"))
      profile = true;
    else if (!std::strcmp(argv[i], "--profile-shapes"))
      profile = shapes = true;
    else {
      std::fprintf(stderr,
                   "usage: %s --model transformer|rnn [--size bench|small-suite] [--steps N] "
                   "[--warmup N] [--threads N] [--profile] [--profile-shapes]\n",
                   argv[0]);
      return 2;
    }
  }
  if (model != "transformer" && model != "rnn") {
    std::fprintf(stderr, "bench_train_step: --model must be transformer or rnn, got '%s'\n",
                 model.c_str());
    return 2;
  }
  if (size != "bench" && size != "small-suite") {
    std::fprintf(stderr, "bench_train_step: --size must be bench or small-suite, got '%s'\n",
                 size.c_str());
    return 2;
  }
  sl::set_blas_threads(threads);
  sl::ProfilingDevice prof(sl::cpu_device());
  prof.set_gemm_shapes(shapes);
  sl::Device& dev = profile ? static_cast<sl::Device&>(prof) : sl::cpu_device();
  sl::ModelConfig cfg;
  if (size == "small-suite") use_small_suite_shapes(cfg);
  cfg.vocab_size = kV;
  cfg.type = model == "rnn" ? sl::ModelType::Rnn : sl::ModelType::Transformer;
  auto m = sl::make_model(cfg);
  sl::ParameterArena arena(dev);
  m->declare(arena);
  arena.allocate();
  m->initialize(arena, 1);
  sl::Adam adam(dev, arena.size(), sl::AdamConfig{});

  // Full-length sentences: no padding, 64 x 24 = 1536 target tokens.
  std::vector<int32_t> src(kB * kS), len(kB, kS), tin(kB * kT), tout(kB * kT);
  for (int i = 0; i < kB * kS; ++i)
    src[i] = 4 + static_cast<int32_t>(sl::counter_hash(7, 0, i) % (kV - 4));
  for (int b = 0; b < kB; ++b)
    for (int t = 0; t < kT; ++t) {
      const int32_t y = 4 + static_cast<int32_t>(sl::counter_hash(7, 1, b * kT + t) % (kV - 4));
      tout[b * kT + t] = t == kT - 1 ? 2 : y;
      if (t + 1 < kT) tin[b * kT + t + 1] = y;
    }
  for (int b = 0; b < kB; ++b) tin[b * kT] = 1;
  sl::ModelBatch batch = sl::make_model_batch(dev, kB, kS, kT, src, len, tin, tout);

  std::vector<double> secs;
  double loss = 0;
  for (int s = 0; s < warmup + steps; ++s) {
    if (s == warmup) prof.reset();  // profile the timed steps only
    const double t0 = sl::wall_seconds();
    arena.zero_grads();
    {
      sl::Graph g(dev, /*dropout_enabled=*/true, 1000 + s);
      sl::Var l = m->loss(g, arena, batch);
      g.backward(l);
      loss = l.value().to_host()[0] / batch.target_tokens;
    }
    adam.step(arena.values(), arena.grads(), 1e-4f);
    dev.synchronize();
    if (s >= warmup) secs.push_back(sl::wall_seconds() - t0);
  }
  std::sort(secs.begin(), secs.end());
  const double med = secs[secs.size() / 2], best = secs.front();
  const double flops =
      cfg.type == sl::ModelType::Transformer ? transformer_flops(cfg.transformer) : 0;
  const double ceiling = sgemm_ceiling(5);
  double mean = 0;
  for (double x : secs) mean += x / secs.size();
  if (profile) std::fputs(sl::profile_table(prof, steps, mean, ceiling).c_str(), stderr);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "{\"side\": \"sparselocal\", \"model\": \"%s\", \"size\": \"%s\", \"profiled\": %s, "
      "\"threads\": %d, \"params\": %zu, "
      "\"steps\": %d, \"median_s\": %.5f, \"best_s\": %.5f, \"tgt_tok_per_s\": %.1f, "
      "\"gflops\": %.2f, \"sgemm_ceiling_gflops\": %.2f, \"peak_rss_mb\": %.1f, \"last_loss\": "
      "%.4f, \"blas\": \"%s\"}\n",
      model.c_str(), size.c_str(), profile ? "true" : "false", threads, arena.size(), steps, med,
      best, batch.target_tokens / med, flops / med * 1e-9, ceiling, ru.ru_maxrss / 1024.0, loss,
      sl::blas::describe().c_str());
  return 0;
}
