#include "distributed/combiner.h"

#include <cstring>
#include <stdexcept>

namespace sl {

namespace {

// DistributedConfig::inconsistency() keeps a local combiner away from non-sparse exchanges;
// this only guards direct use of a Combiner with an ExchangeResult lacking S_n and E_n.
void require_sparse(const ExchangeResult& r, const char* who) {
  if (!r.S || !r.E) throw std::logic_error(std::string(who) + " combiner: no S_n / E_n");
}

class NoneCombiner : public Combiner {
 public:
  void combine(float* grad, const ExchangeResult& r, size_t P) const override {
    if (r.G != grad && P) std::memcpy(grad, r.G, P * sizeof(float));
  }
};

class SumLocalCombiner : public Combiner {
 public:
  void combine(float* grad, const ExchangeResult& r, size_t P) const override {
    require_sparse(r, "sum");
    const float* G = r.G;
    for (size_t i = 0; i < P; ++i) grad[i] = G[i] + grad[i];
  }
};

class PartialLocalCombiner : public Combiner {
 public:
  // G - S_n touches only the k sent positions (S_n is 0 elsewhere and G[i] - 0 == G[i]).
  void combine(float* grad, const ExchangeResult& r, size_t P) const override {
    require_sparse(r, "partial");
    float* G = r.G;
    for (const SparsePair& p : *r.S) G[p.index] = G[p.index] - p.value;
    for (size_t i = 0; i < P; ++i) grad[i] = G[i] + grad[i];
  }
};

class ErrorLocalCombiner : public Combiner {
 public:
  void combine(float* grad, const ExchangeResult& r, size_t P) const override {
    require_sparse(r, "error");
    const float* G = r.G;
    const float* E = r.E->data();
    for (size_t i = 0; i < P; ++i) grad[i] = G[i] + E[i];
    r.E->clear();
  }
};

}  // namespace

std::unique_ptr<Combiner> make_combiner(CombinerKind kind) {
  switch (kind) {
    case CombinerKind::Sum:
      return std::make_unique<SumLocalCombiner>();
    case CombinerKind::Partial:
      return std::make_unique<PartialLocalCombiner>();
    case CombinerKind::Error:
      return std::make_unique<ErrorLocalCombiner>();
    case CombinerKind::None:
      break;
  }
  return std::make_unique<NoneCombiner>();
}

CombinerKind combiner_from_name(const std::string& name) {
  if (name == "none") return CombinerKind::None;
  if (name == "sum") return CombinerKind::Sum;
  if (name == "partial") return CombinerKind::Partial;
  if (name == "error") return CombinerKind::Error;
  throw std::invalid_argument("unknown combiner \"" + name + "\"");
}

const char* combiner_name(CombinerKind kind) {
  switch (kind) {
    case CombinerKind::Sum:
      return "sum";
    case CombinerKind::Partial:
      return "partial";
    case CombinerKind::Error:
      return "error";
    case CombinerKind::None:
      break;
  }
  return "none";
}

}  // namespace sl
