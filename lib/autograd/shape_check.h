#pragma once
#include <stdexcept>
#include <string>

#include "tensor/shape.h"

namespace sl::ops {

[[noreturn]] inline void shape_error(const char* op, const Shape& a, const Shape& b) {
  throw std::invalid_argument(std::string(op) + ": incompatible shapes " + a.str() + " and " +
                              b.str());
}

}  // namespace sl::ops
