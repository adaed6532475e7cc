#include "models/parameter_init.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/counter_rng.h"

namespace sl {

int InitializationPlan::declare(ParameterArena& arena, const std::string& name, const Shape& shape,
                                ParamInit init) {
  const int index = arena.declare(name, shape);
  entries_.emplace_back(index, init);
  return index;
}

void InitializationPlan::initialize(ParameterArena& arena, uint64_t seed) const {
  if (!arena.allocated())
    throw std::logic_error("InitializationPlan::initialize: the arena is not allocated");
  for (const auto& [index, init] : entries_) {
    const Shape& shape = arena.shape(index);
    std::vector<float> v(static_cast<size_t>(shape.numel()));
    switch (init) {
      case ParamInit::Zeros:
        std::fill(v.begin(), v.end(), 0.0f);
        break;
      case ParamInit::Ones:
        std::fill(v.begin(), v.end(), 1.0f);
        break;
      case ParamInit::EmbeddingNormal:
      case ParamInit::UnitNormal: {
        const float stddev = init == ParamInit::UnitNormal || shape.rank() < 2
                                 ? 1.0f
                                 : 1.0f / std::sqrt(static_cast<float>(shape.numel() / shape[0]));
        CounterRng rng(seed, name_stream(arena.name(index)));
        for (float& x : v) x = rng.normal() * stddev;
        break;
      }
      case ParamInit::GlorotUniform:
      case ParamInit::GlorotFusedQkv: {
        float limit = glorot_limit(shape);
        if (init == ParamInit::GlorotFusedQkv && shape.rank() == 2) {
          const double in = static_cast<double>(shape[0]), out = static_cast<double>(shape[1]);
          limit = static_cast<float>(std::sqrt(6.0 / (in + 3.0 * out)));
        }
        CounterRng rng(seed, name_stream(arena.name(index)));
        for (float& x : v) x = (2.0f * rng.uniform() - 1.0f) * limit;
        break;
      }
    }
    Tensor value = arena.value(index);
    if (!v.empty()) arena.device().from_host(value.f32(), v.data(), v.size() * sizeof(float));
  }
}

float glorot_limit(const Shape& shape) {
  const double fan_in = shape.rank() == 0 ? 1.0 : static_cast<double>(shape[0]);
  const double fan_out = shape.rank() <= 1 ? 1.0 : static_cast<double>(shape.numel()) / fan_in;
  return static_cast<float>(std::sqrt(6.0 / (fan_in + fan_out)));
}

uint64_t name_stream(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace sl
