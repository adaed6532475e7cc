#include "toy_training.h"

#include <cmath>
#include <cstring>

#include "common/counter_rng.h"
#include "distributed/distributed_strategy.h"

namespace sl::toy {

namespace {

constexpr int kStepStride = 1000;  // example ids of step t start at t * kStepStride

int batch_of_node(int n) { return 4 + n; }
int offset_of_node(int n) {
  int o = 0;
  for (int m = 0; m < n; ++m) o += batch_of_node(m);
  return o;
}

struct Example {
  float x[kFeatures];
  int label;
};

Example example(uint64_t id) {
  static const std::vector<float> teacher = [] {
    CounterRng r(99, 0);
    std::vector<float> w(kFeatures * kClasses);
    for (float& v : w) v = r.normal();
    return w;
  }();
  Example e;
  CounterRng r(5, id);
  for (float& v : e.x) v = r.normal();
  float best = -1e30f;
  e.label = 0;
  for (int c = 0; c < kClasses; ++c) {
    float z = 0.3f * r.normal();
    for (int d = 0; d < kFeatures; ++d) z += teacher[c * kFeatures + d] * e.x[d];
    if (z > best) best = z, e.label = c;
  }
  return e;
}

// Adds the gradient of the summed cross-entropy to grad; returns the summed loss.
double accumulate_gradient(const std::vector<float>& p, const Example& e, float* grad) {
  const float* W = p.data();
  const float* b = p.data() + kFeatures * kClasses;
  float z[kClasses], zmax = -1e30f;
  for (int c = 0; c < kClasses; ++c) {
    z[c] = b[c];
    for (int d = 0; d < kFeatures; ++d) z[c] += W[c * kFeatures + d] * e.x[d];
    zmax = std::max(zmax, z[c]);
  }
  double denom = 0;
  for (int c = 0; c < kClasses; ++c) denom += std::exp(static_cast<double>(z[c] - zmax));
  for (int c = 0; c < kClasses; ++c) {
    const float pc = static_cast<float>(std::exp(static_cast<double>(z[c] - zmax)) / denom);
    const float dz = pc - (c == e.label ? 1.0f : 0.0f);
    for (int d = 0; d < kFeatures; ++d) grad[c * kFeatures + d] += dz * e.x[d];
    grad[kFeatures * kClasses + c] += dz;
  }
  return std::log(denom) - static_cast<double>(z[e.label] - zmax);
}

template <class T>
void put(std::vector<uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

}  // namespace

std::vector<TensorView> tensors() {
  return {{0, kClasses, kFeatures}, {kFeatures * kClasses, kClasses, 1}};
}

Run train(Communicator& comm, const DistributedConfig& cfg, const Options& o) {
  const size_t P = kParams;
  auto strategy = make_strategy(cfg, comm, P, tensors());
  Run run;
  run.params.resize(P);
  CounterRng init(17, 0);
  for (float& v : run.params) v = 0.05f * init.normal();
  strategy->start(run.params.data());
  std::vector<float> m(P, 0.0f), v(P, 0.0f), grad(P);
  const int n = comm.rank();
  const int first = o.union_of > 0 ? 0 : offset_of_node(n);
  const int count = o.union_of > 0 ? offset_of_node(o.union_of) : batch_of_node(n);
  const float lr = 0.02f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  for (int t = 0; t < o.steps; ++t) {
    std::fill(grad.begin(), grad.end(), 0.0f);
    double loss = 0;
    for (int j = 0; j < count; ++j)
      loss += accumulate_gradient(run.params, example(uint64_t(t) * kStepStride + first + j),
                                  grad.data());
    run.losses.push_back(loss / count);
    StepStats stats;
    strategy->normalize_gradient(grad.data(), count);
    strategy->exchange(grad.data(), t, stats);
    if (t == 0) run.first_update = grad;
    if (o.adam) {
      const float c1 = 1.0f - std::pow(b1, float(t + 1)), c2 = 1.0f - std::pow(b2, float(t + 1));
      for (size_t i = 0; i < P; ++i) {
        m[i] = b1 * m[i] + (1 - b1) * grad[i];
        v[i] = b2 * v[i] + (1 - b2) * grad[i] * grad[i];
        run.params[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
      }
    } else {
      for (size_t i = 0; i < P; ++i) run.params[i] -= 0.5f * grad[i];
    }
    strategy->after_update(run.params.data(), P, {m.data(), v.data()}, t, stats);
    run.stats.push_back(stats);
  }
  return run;
}

std::vector<uint8_t> Run::serialize() const {
  std::vector<uint8_t> out;
  for (float x : params) put(out, x);
  for (double x : losses) put(out, x);
  for (float x : first_update) put(out, x);
  for (const StepStats& s : stats) {
    put(out, s.total_tokens), put(out, s.drop_ratio), put(out, s.k_target);
    put(out, s.k_selected), put(out, s.tau), put(out, s.encoded_bytes);
    put(out, s.bytes_sent), put(out, s.bytes_received), put(out, s.analytic_bytes_sent);
    put(out, s.control_bytes_sent), put(out, s.control_bytes_received);
    put(out, s.modeled_comm.configured), put(out, s.averaged), put(out, s.divergence);
    put(out, s.lowrank_floats), put(out, s.dense_floats), put(out, s.dct_pairs);
    put(out, s.outer_delta_norm);
  }
  return out;
}

std::vector<std::pair<std::string, DistributedConfig>> methods() {
  auto make = [](nlohmann::json j) {
    j["average_every"] = 5;
    j["drop_warmup_steps"] = 3;
    return DistributedConfig::from_json(j, "toy");
  };
  return {
      {"dense", DistributedConfig::from_json({{"method", "dense"}}, "toy")},
      {"sparse", make({{"method", "sparse"}, {"drop_ratio", 0.9}})},
      {"sparse+sum", make({{"method", "sparse"}, {"combiner", "sum"}, {"drop_ratio", 0.9}})},
      {"sparse+partial", make({{"method", "sparse"},
                               {"combiner", "partial"},
                               {"drop_ratio", 0.99},
                               {"threshold", "sampled"},
                               {"sample_size", 50}})},
      {"sparse+error", make({{"method", "sparse"},
                             {"combiner", "error"},
                             {"drop_ratio", 0.9},
                             {"encoding", "delta-varint"}})},
      {"fedavg", make({{"method", "fedavg"}, {"average_moments", true}})},
      {"powersgd",
       DistributedConfig::from_json(
           {{"method", "powersgd"}, {"powersgd", {{"rank", 2}, {"warmup_steps", 3}}}}, "toy")},
      {"diloco", make({{"method", "diloco"}})},
      {"demo",
       DistributedConfig::from_json(
           {{"method", "demo"}, {"demo", {{"beta", 0.9}, {"chunk", 4}, {"topk", 3}}}}, "toy")},
  };
}

uint64_t fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

}  // namespace sl::toy
