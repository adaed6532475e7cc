#pragma once
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace sl {

// All parameters of a model in one contiguous buffer, and all their gradients in a second
// one of the same layout. The distributed layer sees the gradient of the whole model as one
// flat vector g_n of P floats (PAPER.md), with no packing step; the optimizer updates one
// flat vector; a checkpoint is two memcpys.
class ParameterArena {
 public:
  explicit ParameterArena(Device& dev) : dev_(&dev) {}

  // Declare a parameter before allocate(); returns its index. Names are unique paths
  // ("encoder/layer0/attention/wq") used in checkpoints and NaN reports.
  int declare(const std::string& name, const Shape& shape);
  // Allocates values and gradients (zeroed). No declare() after this.
  void allocate();

  bool allocated() const { return values_.defined(); }
  int count() const { return static_cast<int>(names_.size()); }
  size_t size() const { return static_cast<size_t>(total_); }  // P
  const std::string& name(int i) const { return names_[i]; }
  const Shape& shape(int i) const { return shapes_[i]; }
  int64_t offset(int i) const { return offsets_[i]; }
  int index_of(const std::string& name) const;  // -1 when absent
  // Name of the parameter holding flat element `flat_index` (for NaN reports).
  const std::string& name_at(int64_t flat_index) const;

  Tensor value(int i) const { return values_.slice_view(offsets_[i], shapes_[i]); }
  Tensor grad(int i) const { return grads_.slice_view(offsets_[i], shapes_[i]); }
  const Tensor& values() const { return values_; }  // [P]
  const Tensor& grads() const { return grads_; }    // [P]
  void zero_grads() { grads_.fill(0.0f); }
  Device& device() const { return *dev_; }

 private:
  Device* dev_;
  std::vector<std::string> names_;
  std::vector<Shape> shapes_;
  std::vector<int64_t> offsets_;
  int64_t total_ = 0;
  Tensor values_, grads_;
};

}  // namespace sl
