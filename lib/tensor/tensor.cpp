#include "tensor/tensor.h"

#include <algorithm>
#include <stdexcept>

namespace sl {

namespace {
size_t elem_bytes(DType t) { return t == DType::F32 ? sizeof(float) : sizeof(int32_t); }
}  // namespace

Tensor Tensor::empty(Device& dev, const Shape& shape, DType dtype) {
  Tensor t;
  t.buffer_ = std::make_shared<Buffer>(dev, static_cast<size_t>(shape.numel()) * elem_bytes(dtype));
  t.shape_ = shape;
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::zeros(Device& dev, const Shape& shape) {
  Tensor t = empty(dev, shape);
  t.fill(0.0f);
  return t;
}

Tensor Tensor::from_host(Device& dev, const Shape& shape, const std::vector<float>& values) {
  if (static_cast<int64_t>(values.size()) != shape.numel())
    throw std::invalid_argument("Tensor::from_host: " + std::to_string(values.size()) +
                                " values for shape " + shape.str());
  Tensor t = empty(dev, shape);
  dev.from_host(t.f32(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor Tensor::from_host_ids(Device& dev, const Shape& shape, const std::vector<int32_t>& ids) {
  if (static_cast<int64_t>(ids.size()) != shape.numel())
    throw std::invalid_argument("Tensor::from_host_ids: " + std::to_string(ids.size()) +
                                " ids for shape " + shape.str());
  Tensor t = empty(dev, shape, DType::I32);
  dev.from_host(t.i32(), ids.data(), ids.size() * sizeof(int32_t));
  if (t.buffer_ && !ids.empty()) {
    const auto mm = std::minmax_element(ids.begin(), ids.end());
    t.buffer_->remember_host_ids(std::make_shared<const std::vector<int32_t>>(ids), *mm.first,
                                 *mm.second);
  }
  return t;
}

float* Tensor::f32() const {
  if (dtype_ != DType::F32) throw std::logic_error("Tensor::f32 on an int32 tensor");
  return static_cast<float*>(buffer_->data()) + offset_;
}

int32_t* Tensor::i32() const {
  if (dtype_ != DType::I32) throw std::logic_error("Tensor::i32 on a float32 tensor");
  return static_cast<int32_t*>(buffer_->data()) + offset_;
}

Tensor Tensor::view(const Shape& shape) const {
  if (shape.numel() != numel())
    throw std::invalid_argument("Tensor::view " + shape_.str() + " -> " + shape.str());
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::slice_view(int64_t offset, const Shape& shape) const {
  if (offset < 0 || offset + shape.numel() > numel())
    throw std::invalid_argument("Tensor::slice_view out of range");
  Tensor t = *this;
  t.offset_ += offset;
  t.shape_ = shape;
  return t;
}

std::vector<float> Tensor::to_host() const {
  std::vector<float> v(static_cast<size_t>(numel()));
  if (!v.empty()) device().to_host(v.data(), f32(), v.size() * sizeof(float));
  return v;
}

std::vector<int32_t> Tensor::to_host_ids() const {
  const std::vector<int32_t>* kept =
      buffer_ && dtype_ == DType::I32 ? buffer_->host_ids() : nullptr;
  if (kept && offset_ + numel() <= static_cast<int64_t>(kept->size()))
    return std::vector<int32_t>(kept->begin() + offset_, kept->begin() + offset_ + numel());
  std::vector<int32_t> v(static_cast<size_t>(numel()));
  if (!v.empty()) device().to_host(v.data(), i32(), v.size() * sizeof(int32_t));
  return v;
}

void Tensor::copy_from(const Tensor& o) {
  if (o.numel() != numel() || o.dtype_ != dtype_)
    throw std::invalid_argument("Tensor::copy_from " + o.shape_.str() + " -> " + shape_.str());
  size_t bytes = static_cast<size_t>(numel()) * elem_bytes(dtype_);
  buffer_->forget_id_range();
  void* dst = static_cast<char*>(buffer_->data()) + offset_ * elem_bytes(dtype_);
  const void* src = static_cast<const char*>(o.buffer_->data()) + o.offset_ * elem_bytes(dtype_);
  if (&o.device() == &device()) {
    device().copy(dst, src, bytes);
  } else if (!o.device().is_cuda()) {
    device().from_host(dst, src, bytes);
  } else if (!device().is_cuda()) {
    o.device().to_host(dst, src, bytes);
  } else {
    std::vector<char> tmp(bytes);
    o.device().to_host(tmp.data(), src, bytes);
    device().from_host(dst, tmp.data(), bytes);
  }
}

void Tensor::fill(float v) {
  if (numel() > 0) device().fill(static_cast<size_t>(numel()), v, f32());
  if (buffer_) buffer_->forget_id_range();
}

}  // namespace sl
