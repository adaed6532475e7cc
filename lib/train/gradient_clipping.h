#pragma once
#include <cstddef>

#include "tensor/device.h"

namespace sl {

// Scales g so that its L2 norm is at most max_norm (no-op when max_norm <= 0 or the norm is
// already smaller). Returns the norm before clipping (non-finite when g holds NaN/Inf).
double clip_global_norm(Device& dev, float* g, size_t n, double max_norm);

}  // namespace sl
