#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tensor/parameter_arena.h"

namespace sl {

// EmbeddingNormal: N(0, 1/sqrt(cols)) for a [V, dim] table, so each embedding vector has
// norm ~1 whatever V is (Glorot's limit shrinks with V: +-0.027 for 8000 x 256).
// GlorotFusedQkv: Glorot of the [in, 3 out] matrix that q, k and v form when fused, as
// nn.MultiheadAttention's in_proj (limit sqrt(6 / (in + 3 out)), 1/sqrt(2) of GlorotUniform's
// for a square matrix). UnitNormal: N(0, 1), PyTorch's nn.Embedding default.
enum class ParamInit { GlorotUniform, EmbeddingNormal, Zeros, Ones, GlorotFusedQkv, UnitNormal };

// Declares parameters in an arena and remembers how each one is initialised. The values of
// a parameter depend only on (seed, its name), never on declaration order or on the node,
// so every node of a run starts from the same parameters.
class InitializationPlan {
 public:
  int declare(ParameterArena& arena, const std::string& name, const Shape& shape, ParamInit init);
  // Fills every declared parameter (the arena must be allocated).
  void initialize(ParameterArena& arena, uint64_t seed) const;
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<int, ParamInit>> entries_;
};

// Glorot/Xavier uniform limit sqrt(6 / (fan_in + fan_out)) for a [fan_in, fan_out] matrix
// (or any shape: first dim = fan_in, the rest = fan_out).
float glorot_limit(const Shape& shape);

// 64-bit FNV-1a of a parameter name: the RNG stream of that parameter.
uint64_t name_stream(const std::string& name);

}  // namespace sl
