#include "train/parameter_views.h"

namespace sl {

std::vector<TensorView> parameter_views(const ParameterArena& arena) {
  std::vector<TensorView> v;
  for (int i = 0; i < arena.count(); ++i) {
    const Shape& s = arena.shape(i);
    const size_t n = static_cast<size_t>(s.numel());
    const size_t rows = s.rank() == 0 ? 1 : static_cast<size_t>(s[0]);
    v.push_back({static_cast<size_t>(arena.offset(i)), rows, rows ? n / rows : 1});
  }
  return v;
}

}  // namespace sl
