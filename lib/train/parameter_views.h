#pragma once
#include <vector>

#include "distributed/tensor_view.h"
#include "tensor/parameter_arena.h"

namespace sl {

// The arena's parameters as the distributed layer's tensor views, in arena order: a matrix
// [rows, cols] as it is, a vector [n] as n x 1, a tensor of rank > 2 as (dim 0) x (the rest),
// as PyTorch's PowerSGD hook reshapes it.
std::vector<TensorView> parameter_views(const ParameterArena& arena);

}  // namespace sl
