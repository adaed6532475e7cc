#include "distributed/device_exchange.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/timer.h"
#include "distributed/dense_exchange.h"
#include "distributed/drop_ratio_schedule.h"
#include "distributed/pair_encoding.h"
#include "distributed/wire_bytes.h"
#include "tensor/cuda/pinned_host_buffer.h"
#include "tensor/cuda/sparsify.h"

namespace sl {

namespace {
// Device memory for the strategy's lifetime.
struct DeviceBuffer {
  Device& dev;
  void* p = nullptr;
  DeviceBuffer(Device& d, size_t bytes) : dev(d), p(bytes ? d.alloc(bytes) : nullptr) {}
  ~DeviceBuffer() {
    if (p) dev.release(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};
}  // namespace

struct DeviceDistributedStrategy::Impl {
  Impl(Device& dev, size_t P, bool sparse, bool dense_staging)
      : E(sparse ? P : 0),
        d_E(dev, sparse ? P * sizeof(float) : 0),
        d_G(dev, sparse ? P * sizeof(float) : 0),
        d_pairs(dev, sparse ? P * sizeof(sparsify::DevicePair) : 0),
        d_recv(dev, sparse ? P * sizeof(sparsify::DevicePair) : 0),
        staging(dense_staging ? P * sizeof(float) : 0) {}
  ErrorFeedback E;  // host copy of E_n (checkpoints)
  DeviceBuffer d_E, d_G, d_pairs, d_recv;
  std::unique_ptr<PairEncoding> encoding;
  std::vector<SparsePair> S, decoded;
  std::vector<uint8_t> wire;
  std::vector<std::vector<uint8_t>> received;
  PinnedHostBuffer staging;  // dense with N > 1: the buffer on its way through MPI
};

DeviceDistributedStrategy::DeviceDistributedStrategy(const DistributedConfig& config,
                                                     Communicator& comm, size_t P, Device& dev,
                                                     ErrorFeedback* host_E)
    : config_(config),
      P_(P),
      dev_(dev),
      acct_(comm, config.network),
      averager_(config.average_every, config.average_moments),
      impl_(std::make_unique<Impl>(dev, P, config.method == Method::Sparse,
                                   config.method == Method::Dense && comm.size() > 1)) {
  if (!dev.is_cuda())
    throw std::invalid_argument("DeviceDistributedStrategy needs the CUDA device");
  if (config.combiner != CombinerKind::None && config.method != Method::Sparse)
    throw std::invalid_argument(std::string("combiner ") + combiner_name(config.combiner) +
                                " needs method sparse");
  host_E_ = host_E ? host_E : &impl_->E;
  if (config.method == Method::Sparse && host_E_->size() != P)
    throw std::invalid_argument("DeviceDistributedStrategy: host E_n has the wrong size");
  if (config.method == Method::Sparse) {
    impl_->encoding = make_pair_encoding(config.encoding);
    if (P) dev_.fill(P, 0.0f, impl_->d_E.as<float>());
  }
}

DeviceDistributedStrategy::~DeviceDistributedStrategy() = default;

void DeviceDistributedStrategy::to_host(std::vector<float>& h, const float* d) {
  h.resize(P_);
  dev_.to_host(h.data(), d, P_ * sizeof(float));
}
void DeviceDistributedStrategy::from_host(float* d, const std::vector<float>& h) {
  dev_.from_host(d, h.data(), P_ * sizeof(float));
}

int64_t DeviceDistributedStrategy::normalize_gradient(float* grad, int64_t local_tokens) {
  const int64_t total = acct_.allreduce_token_count(pending_, local_tokens);
  const float scale = static_cast<float>(1.0 / static_cast<double>(total));
  dev_.axpby(P_, scale, grad, 0.0f, grad);  // b == 0: y = a * x, the CPU's grad[i] *= scale
  return total;
}

void DeviceDistributedStrategy::exchange(float* grad, int64_t step, StepStats& stats) {
  stats = pending_;
  pending_ = StepStats{};
  stats.step = step;
  const int N = acct_.comm().size();
  stats.node = acct_.comm().rank();
  stats.nodes = N;
  stats.network = acct_.network().name;
  Impl& m = *impl_;
  switch (config_.method) {
    case Method::FedAvg:
      return combine(grad, grad);
    case Method::Dense: {
      const size_t bytes = P_ * sizeof(float);
      if (N > 1) dev_.synchronize();  // queued compute (the normalisation) is not communication
      host_staged_allreduce(
          acct_, stats, m.staging.as<float>(), P_, [&](float* h) { dev_.to_host(h, grad, bytes); },
          [&](const float* h) { dev_.from_host(grad, h, bytes); });
      return combine(grad, grad);
    }
    case Method::Sparse:
      break;
    case Method::PowerSgd:
    case Method::DiLoCo:
    case Method::DeMo:  // DistributedConfig::has_device_exchange() keeps these on the host
      throw std::logic_error("DeviceDistributedStrategy: no device exchange for this method");
  }
  const double rho_t = drop_ratio_at(config_.drop_ratio, config_.drop_warmup_steps, step);
  const uint64_t k = keep_count(P_, rho_t);
  const uint64_t sample = config_.threshold == ThresholdMode::Exact
                              ? 0
                              : std::min<uint64_t>(static_cast<uint64_t>(config_.sample_size), P_);
  const uint64_t k_select = sample == 0 || sample >= P_ ? k : keep_count(sample, rho_t);

  double t0 = wall_seconds();
  sparsify::DeviceSelection sel;
  if (P_)
    sel = sparsify::compress(dev_, grad, m.d_E.as<float>(), P_, k_select, sample,
                             m.d_pairs.as<sparsify::DevicePair>());
  m.S.resize(sel.k_selected);
  if (sel.k_selected) dev_.to_host(m.S.data(), m.d_pairs.p, sel.k_selected * sizeof(SparsePair));
  m.encoding->encode(m.S, m.wire);
  dev_.synchronize();  // kernels queued after the last read-back (E_n's update) belong here
  stats.compress_seconds += wall_seconds() - t0;

  acct_.measure(stats, [&] { acct_.comm().allgather_bytes(m.wire, m.received); });

  t0 = wall_seconds();
  float* G = m.d_G.as<float>();
  if (P_) dev_.fill(P_, 0.0f, G);
  size_t max_block = 0;
  for (int r = 0; r < N; ++r) {  // rank order: G = 0 + S_0 + S_1 + ... per element
    m.encoding->decode(m.received[r], P_, m.decoded);  // validates every index < P
    if (m.decoded.size() > P_) throw std::runtime_error("device exchange: more pairs than P");
    if (!m.decoded.empty()) {
      dev_.from_host(m.d_recv.p, m.decoded.data(), m.decoded.size() * sizeof(SparsePair));
      sparsify::scatter_add(dev_, m.d_recv.as<sparsify::DevicePair>(), m.decoded.size(), 1.0f, G);
    }
    max_block = std::max(max_block, m.received[r].size());
  }
  dev_.synchronize();  // the scatter-adds are asynchronous: a host clock must wait for them
  stats.decompress_seconds += wall_seconds() - t0;
  stats.compress_clock = "device_wall";

  float tau;
  static_assert(sizeof tau == sizeof sel.tau_key, "");
  std::memcpy(&tau, &sel.tau_key, sizeof tau);
  stats.drop_ratio = rho_t;
  stats.k_target = static_cast<int64_t>(k);
  stats.k_selected = static_cast<int64_t>(sel.k_selected);
  stats.tau = tau;
  stats.encoded_bytes = static_cast<int64_t>(m.wire.size());
  stats.bytes_per_pair = sel.k_selected ? static_cast<double>(m.wire.size()) / sel.k_selected : 0.0;
  stats.analytic_bytes_sent += analytic_allgather_bytes(m.wire.size(), N);
  acct_.model_variable_allgather(stats, static_cast<double>(max_block));
  combine(grad, G);
}

// The Combiner kinds on the device, element by element as combiner.cpp does them.
void DeviceDistributedStrategy::combine(float* grad, float* G) {
  Impl& m = *impl_;
  if (!P_) return;
  switch (config_.combiner) {
    case CombinerKind::None:
      if (G != grad) dev_.copy(grad, G, P_ * sizeof(float));
      return;
    case CombinerKind::Sum:  // grad = G + grad
      dev_.axpby(P_, 1.0f, G, 1.0f, grad);
      return;
    case CombinerKind::Partial:  // G[i] -= S_n at the sent positions, then grad = G + grad
      sparsify::scatter_add(dev_, m.d_pairs.as<sparsify::DevicePair>(), m.S.size(), -1.0f, G);
      dev_.axpby(P_, 1.0f, G, 1.0f, grad);
      return;
    case CombinerKind::Error:  // grad = G + E, E = 0
      dev_.copy(grad, m.d_E.p, P_ * sizeof(float));
      dev_.axpby(P_, 1.0f, G, 1.0f, grad);
      dev_.fill(P_, 0.0f, m.d_E.as<float>());
      return;
  }
}

void DeviceDistributedStrategy::after_update(float* params, size_t P,
                                             const std::vector<float*>& moments, int64_t step,
                                             StepStats& stats) {
  if (P != P_)
    throw std::invalid_argument("after_update: P = " + std::to_string(P) +
                                " but the strategy was built for " + std::to_string(P_));
  if (!averager_.due(step)) return;
  // Every K steps: through the host (one dense all-reduce per buffer, as on the CPU).
  std::vector<std::vector<float>> h(1 + moments.size());
  to_host(h[0], params);
  std::vector<float*> hm;
  const size_t n_moments = averager_.averages_moments() ? moments.size() : 0;
  h.resize(1 + n_moments);
  for (size_t i = 0; i < n_moments; ++i) {
    to_host(h[i + 1], moments[i]);
    hm.push_back(h[i + 1].data());
  }
  averager_.average(acct_, h[0].data(), P, hm, stats);
  from_host(params, h[0]);
  for (size_t i = 0; i < n_moments; ++i) from_host(moments[i], h[i + 1]);
}

ErrorFeedback* DeviceDistributedStrategy::error_feedback() {
  if (config_.method != Method::Sparse) return nullptr;
  if (P_) dev_.to_host(host_E_->data(), impl_->d_E.p, P_ * sizeof(float));
  return host_E_;
}

void DeviceDistributedStrategy::error_feedback_to_device() {
  if (config_.method == Method::Sparse && P_)
    dev_.from_host(impl_->d_E.p, host_E_->data(), P_ * sizeof(float));
}

}  // namespace sl
