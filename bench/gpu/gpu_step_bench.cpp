// Seconds per training step (forward + backward + Adam) of Transformer-base -- 6+6 layers,
// d_model 512, 8 heads, ff 2048, vocab 32k, tied embeddings, label smoothing 0.1, dropout 0.1
// -- at 8192 target tokens (256 sentences x 32 source and 32 target tokens, no padding), on
// the CPU or the CUDA backend. On CUDA each step is timed with CUDA events (the GPU's time)
// and with a synchronised wall clock; TF32 off unless --tf32. One JSON line, the fields of
// bench/gpu/torch_step.py's, for bench/gpu/run-on-gpu.sh's table. On CUDA it adds the caching
// allocator after the first step (alloc_in_use_bytes, alloc_cached_bytes, alloc_cap_bytes) and
// the cudaMalloc / cudaFree calls made during the timed steps (raw_allocs_timed,
// raw_frees_timed: 0 when the cache serves every step).
//   bench_gpu_step [--device cpu|cuda] [--steps N] [--warmup N] [--tf32] [--tiny]
//   --tiny: d 64, 2 heads, ff 128, 1+1 layers, vocab 500, 8 x 8 tokens (dry runs, CI).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/counter_rng.h"
#include "common/timer.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "train/adam.h"
#ifdef SL_HAVE_CUDA
#include "tensor/cuda/cuda_device.h"
#include "tensor/cuda/cuda_timer.h"
#endif

int main(int argc, char** argv) {
  std::string device = "cuda";
  int steps = 20, warmup = 3;
  bool tf32 = false, tiny = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = std::max(0, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--tf32")) tf32 = true;
    else if (!std::strcmp(argv[i], "--tiny")) tiny = true;
    else {
      std::fprintf(stderr, "usage: %s [--device cpu|cuda] [--steps N] [--warmup N] [--tf32] [--tiny]\n", argv[0]);
      return 2;
    }
  }
  const int B = tiny ? 8 : 256, S = tiny ? 8 : 32, T = tiny ? 8 : 32, V = tiny ? 500 : 32000;
  try {
    sl::Device& dev = sl::device_by_name(device);
    if (!dev.is_cuda()) sl::set_blas_threads(2);
#ifdef SL_HAVE_CUDA
    if (dev.is_cuda()) static_cast<sl::CudaDevice&>(dev).set_tf32(tf32);
#endif
    sl::ModelConfig cfg;
    cfg.vocab_size = V;
    cfg.type = sl::ModelType::Transformer;
    sl::TransformerConfig& t = cfg.transformer;
    t.d_model = tiny ? 64 : 512;
    t.heads = tiny ? 2 : 8;
    t.ff = tiny ? 128 : 2048;
    t.encoder_layers = t.decoder_layers = tiny ? 1 : 6;
    t.dropout = 0.1f;
    t.label_smoothing = 0.1f;
    t.tied_embeddings = sl::TiedEmbeddings::All;
    auto m = sl::make_model(cfg);
    sl::ParameterArena arena(dev);
    m->declare(arena);
    arena.allocate();
    m->initialize(arena, 1);
    sl::Adam adam(dev, arena.size(), sl::AdamConfig{});

    std::vector<int32_t> src(B * S), len(B, S), tin(B * T), tout(B * T);
    for (int i = 0; i < B * S; ++i) src[i] = 4 + static_cast<int32_t>(sl::counter_hash(7, 0, i) % (V - 4));
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < T; ++j) {
        const int32_t y = 4 + static_cast<int32_t>(sl::counter_hash(7, 1, b * T + j) % (V - 4));
        tout[b * T + j] = j == T - 1 ? 2 : y;
        if (j + 1 < T) tin[b * T + j + 1] = y;
      }
    for (int b = 0; b < B; ++b) tin[b * T] = 1;
    sl::ModelBatch batch = sl::make_model_batch(dev, B, S, T, src, len, tin, tout);

#ifdef SL_HAVE_CUDA
    std::unique_ptr<sl::CudaEventTimer> events;
    if (dev.is_cuda()) events = std::make_unique<sl::CudaEventTimer>();
#endif
    std::vector<double> wall, gpu;
    double loss = 0;
    std::string alloc_json;  // CUDA only
#ifdef SL_HAVE_CUDA
    auto* cuda = dev.is_cuda() ? &static_cast<sl::CudaDevice&>(dev) : nullptr;
    sl::CudaDevice::AllocatorStats after_first{}, timed_start{};
#endif
    dev.synchronize();
    for (int s = 0; s < warmup + steps; ++s) {
#ifdef SL_HAVE_CUDA
      if (cuda && s == warmup) timed_start = cuda->allocator_stats();
#endif
      const double t0 = sl::wall_seconds();
#ifdef SL_HAVE_CUDA
      if (events) events->start();
#endif
      arena.zero_grads();
      sl::Tensor lv;
      {
        sl::Graph g(dev, /*dropout_enabled=*/true, 1000 + s);
        sl::Var l = m->loss(g, arena, batch);
        g.backward(l);
        lv = l.value();
      }
      adam.step(arena.values(), arena.grads(), 1e-4f);
#ifdef SL_HAVE_CUDA
      if (events) events->stop();
#endif
      dev.synchronize();
      const double w = sl::wall_seconds() - t0;
      if (s >= warmup) {
        wall.push_back(w);
#ifdef SL_HAVE_CUDA
        if (events) gpu.push_back(events->seconds());
#endif
      }
      loss = lv.to_host()[0] / batch.target_tokens;
#ifdef SL_HAVE_CUDA
      if (cuda && s == 0) after_first = cuda->allocator_stats();
#endif
    }
#ifdef SL_HAVE_CUDA
    if (cuda) {
      const sl::CudaDevice::AllocatorStats end = cuda->allocator_stats();
      alloc_json =
          ", \"alloc_in_use_bytes\": " + std::to_string(after_first.in_use) +
          ", \"alloc_cached_bytes\": " + std::to_string(after_first.cached) +
          ", \"alloc_cap_bytes\": " + std::to_string(after_first.cap) +
          ", \"raw_allocs_timed\": " + std::to_string(end.raw_allocs - timed_start.raw_allocs) +
          ", \"raw_frees_timed\": " + std::to_string(end.raw_frees - timed_start.raw_frees);
    }
#endif
    std::sort(wall.begin(), wall.end());
    std::sort(gpu.begin(), gpu.end());
    const double med = wall[wall.size() / 2];
    const double gmed = gpu.empty() ? med : gpu[gpu.size() / 2];
    std::printf(
        "{\"side\": \"sparselocal\", \"device\": \"%s\", \"tf32\": %s, \"params\": %zu, "
        "\"target_tokens\": %lld, \"steps\": %d, \"median_s\": %.5f, \"best_s\": %.5f, "
        "\"event_median_s\": %.5f, \"clock\": \"%s\", \"tgt_tok_per_s\": %.1f, \"last_loss\": "
        "%.4f%s}\n",
        device.c_str(), tf32 ? "true" : "false", arena.size(),
        static_cast<long long>(batch.target_tokens), steps, med, wall.front(), gmed,
        gpu.empty() ? "wall" : "cuda-events", batch.target_tokens / gmed, loss, alloc_json.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_step: %s\n", e.what());
    return 1;
  }
  return 0;
}
