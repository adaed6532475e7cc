// What one update costs a node with each distributed method, in thread CPU time (so that the
// simulated nodes sharing the cores, and other processes, do not count): forward + backward
// of a synthetic batch of the config's batch_tokens, the exchange's local work (normalise,
// compress, sum in the collectives, decompress; waiting in a collective costs no CPU), and the
// update (clip, optimizer, after_update). N nodes on a SimulatedCluster, steps numbered past
// every warm-up (drop ratio, PowerSGD's dense steps) so that the compressed path is timed.
//
//   bench_exchange --config configs/beyond/transformer-demo.json [--set key=value]...
//                  [--steps 20] [--warmup 3]
// prints one JSON line: method, P, and the means over nodes and timed steps in ms.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "common/counter_rng.h"
#include "common/timer.h"
#include "distributed/distributed_strategy.h"
#include "distributed/simulated_cluster.h"
#include "experiment/config_loader.h"
#include "experiment/experiment_config.h"
#include "models/seq2seq_model.h"
#include "tensor/device_registry.h"
#include "train/gradient_clipping.h"
#include "train/optimizer.h"
#include "train/parameter_views.h"

namespace {

struct Times {
  double fwd_bwd = 0, exchange = 0, update = 0, bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string config;
  std::vector<std::string> sets;
  int steps = 20, warmup = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--config") && i + 1 < argc)
      config = argv[++i];
    else if (!std::strcmp(argv[i], "--set") && i + 1 < argc)
      sets.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc)
      warmup = std::max(0, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr,
                   "usage: %s --config FILE [--set key=value]... [--steps N] [--warmup N]\n",
                   argv[0]);
      return 2;
    }
  }
  if (config.empty()) return std::fprintf(stderr, "bench_exchange: --config is required\n"), 2;
  nlohmann::json j = sl::load_config_file(config);
  sl::apply_overrides(j, sets);
  const sl::ExperimentConfig e = sl::parse_experiment_config(j, config, "");
  const sl::TrainingJob& job = e.job;
  const int N = e.cluster.nodes;
  sl::set_blas_threads(1);
  sl::Device& dev = sl::device_by_name("cpu");
  // Sentences of 20 tokens filling batch_tokens, random ids: the shapes of a real batch.
  const int T = 20, S = 20, B = std::max<int>(1, static_cast<int>(job.batching.max_tokens) / T);
  const int V = job.model.vocab_size;
  constexpr int64_t kPastWarmups = 1000000;

  std::vector<Times> per_node(N);
  size_t P = 0;
  sl::SimulatedCluster::run(N, [&](sl::Communicator& comm) {
    auto model = sl::make_model(job.model);
    sl::ParameterArena arena(dev);
    model->declare(arena);
    arena.allocate();
    model->initialize(arena, job.seed);
    P = arena.size();
    auto opt = sl::make_optimizer(job.train, dev, arena.size());
    auto strategy =
        sl::make_strategy(job.distributed, comm, arena.size(), sl::parameter_views(arena));
    strategy->start(arena.values().f32());
    const int r = comm.rank();
    std::vector<int32_t> src(B * S), len(B, S), tin(B * T), tout(B * T);
    for (int i = 0; i < B * S; ++i)
      src[i] = 4 + static_cast<int32_t>(sl::counter_hash(7, r, i) % (V - 4));
    for (int i = 0; i < B * T; ++i)
      tout[i] = 4 + static_cast<int32_t>(sl::counter_hash(8, r, i) % (V - 4));
    for (int b = 0; b < B; ++b) {
      tin[b * T] = 1;
      for (int t = 1; t < T; ++t) tin[b * T + t] = tout[b * T + t - 1];
    }
    const sl::ModelBatch batch = sl::make_model_batch(dev, B, S, T, src, len, tin, tout);
    Times& acc = per_node[r];
    for (int s = 0; s < warmup + steps; ++s) {
      const int64_t t = kPastWarmups + s;
      const double c0 = sl::thread_cpu_seconds();
      arena.zero_grads();
      {
        sl::Graph g(dev, true, sl::counter_hash(job.seed, r, t));
        sl::Var loss = model->loss(g, arena, batch);
        g.backward(loss);
      }
      const double c1 = sl::thread_cpu_seconds();
      sl::StepStats stats;
      strategy->normalize_gradient(arena.grads().f32(), batch.target_tokens);
      strategy->exchange(arena.grads().f32(), t, stats);
      const double c2 = sl::thread_cpu_seconds();
      sl::clip_global_norm(dev, arena.grads().f32(), arena.size(), job.train.clip_norm);
      opt->step(arena.values(), arena.grads(), 1e-4f);
      std::vector<float*> moments;
      for (const sl::Tensor& m : opt->moments()) moments.push_back(m.f32());
      strategy->after_update(arena.values().f32(), arena.size(), moments, t, stats);
      const double c3 = sl::thread_cpu_seconds();
      if (s < warmup) continue;
      acc.fwd_bwd += (c1 - c0) * 1e3 / steps;
      acc.exchange += (c2 - c1) * 1e3 / steps;
      acc.update += (c3 - c2) * 1e3 / steps;
      acc.bytes += static_cast<double>(stats.bytes_sent) / steps;
    }
  });
  Times mean;
  for (const Times& x : per_node) {
    mean.fwd_bwd += x.fwd_bwd / N;
    mean.exchange += x.exchange / N;
    mean.update += x.update / N;
    mean.bytes += x.bytes / N;
  }
  std::printf(
      "{\"config\": \"%s\", \"method\": \"%s\", \"optimizer\": \"%s\", \"nodes\": %d, \"P\": %zu, "
      "\"fwd_bwd_ms\": %.3f, \"exchange_ms\": %.3f, \"update_ms\": %.3f, \"total_ms\": %.3f, "
      "\"bytes_sent_per_step\": %.0f}\n",
      config.c_str(), job.distributed.method_name().c_str(), job.train.optimizer.c_str(), N, P,
      mean.fwd_bwd, mean.exchange, mean.update, mean.fwd_bwd + mean.exchange + mean.update,
      mean.bytes);
  return 0;
}
