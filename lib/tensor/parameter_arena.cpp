#include "tensor/parameter_arena.h"

#include <algorithm>
#include <stdexcept>

namespace sl {

int ParameterArena::declare(const std::string& name, const Shape& shape) {
  if (allocated()) throw std::logic_error("ParameterArena::declare after allocate: " + name);
  if (index_of(name) >= 0) throw std::logic_error("ParameterArena: duplicate parameter " + name);
  names_.push_back(name);
  shapes_.push_back(shape);
  offsets_.push_back(total_);
  // Keep every parameter 16-float aligned so vector kernels and CUDA loads stay aligned.
  total_ += (shape.numel() + 15) / 16 * 16;
  return count() - 1;
}

void ParameterArena::allocate() {
  values_ = Tensor::zeros(*dev_, Shape{total_});
  grads_ = Tensor::zeros(*dev_, Shape{total_});
}

int ParameterArena::index_of(const std::string& name) const {
  auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

const std::string& ParameterArena::name_at(int64_t flat_index) const {
  auto it = std::upper_bound(offsets_.begin(), offsets_.end(), flat_index);
  return names_[std::max<ptrdiff_t>(0, (it - offsets_.begin()) - 1)];
}

}  // namespace sl
