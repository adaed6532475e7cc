#pragma once
#include <cstddef>
#include <vector>

namespace sl {

// One parameter tensor inside the flat buffer of P floats the strategy works on, seen as a
// rows x cols row-major matrix starting at `offset`. A vector is rows x 1; a tensor of rank
// > 2 is (dim 0) x (the product of the rest), as PyTorch's PowerSGD hook reshapes it. The
// trainer builds these from its parameter arena (train/parameter_views.h), so the methods
// that work per tensor (PowerSGD, DeMo) see shapes while this layer still knows no model.
struct TensorView {
  size_t offset = 0;
  size_t rows = 0, cols = 1;
  size_t size() const { return rows * cols; }
};

// The whole buffer as one vector: the layout of a caller that has no tensors to name.
std::vector<TensorView> one_vector(size_t P);

// Throws std::invalid_argument unless the views lie inside [0, P) in increasing order
// without overlapping. Gaps between them (the parameter arena's alignment padding) hold no
// parameter; g_n is 0 there, and the per-tensor methods leave those elements as they are.
void check_views(const std::vector<TensorView>& views, size_t P);

}  // namespace sl
