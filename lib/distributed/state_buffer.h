#pragma once
#include <cstddef>
#include <string>

namespace sl {

// A piece of a strategy's state that an exact resume needs (E_n, PowerSGD's Q, DiLoCo's
// anchor, DeMo's momentum, ...): a checkpoint saves and restores it under `name`.
struct StateBuffer {
  std::string name;
  float* data = nullptr;
  size_t size = 0;
};

}  // namespace sl
