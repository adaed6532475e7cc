#include "distributed/tensor_view.h"

#include <stdexcept>
#include <string>

namespace sl {

std::vector<TensorView> one_vector(size_t P) { return {TensorView{0, P, 1}}; }

void check_views(const std::vector<TensorView>& views, size_t P) {
  size_t end = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    const TensorView& v = views[i];
    if (v.offset < end || v.cols == 0 || v.offset + v.size() > P)
      throw std::invalid_argument(
          "tensor view " + std::to_string(i) + " (offset " + std::to_string(v.offset) + ", " +
          std::to_string(v.rows) + " x " + std::to_string(v.cols) + ") must start at or after " +
          std::to_string(end) + ", have columns and end by P = " + std::to_string(P));
    end = v.offset + v.size();
  }
}

}  // namespace sl
