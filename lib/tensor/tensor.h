#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor/device.h"
#include "tensor/shape.h"

namespace sl {

enum class DType { F32, I32 };

// Device memory owned by one allocation; tensors share it (views into a parameter arena,
// reshapes) through shared_ptr.
class Buffer {
 public:
  Buffer(Device& dev, size_t bytes) : dev_(dev), bytes_(bytes), ptr_(bytes ? dev.alloc(bytes) : nullptr) {}
  ~Buffer() {
    if (ptr_) dev_.release(ptr_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  Device& device() const { return dev_; }

  // The int32 ids this buffer received from the host (Tensor::from_host_ids) and their
  // [min, max], so a consumer on a GPU can range-check them (ops::embedding) or read them
  // (sentence lengths) without a device round trip, which would wait for all queued work.
  // Forgotten by Tensor::copy_from/fill; code writing ids through i32() directly must call
  // forget_id_range().
  void remember_host_ids(std::shared_ptr<const std::vector<int32_t>> ids, int32_t lo, int32_t hi) {
    host_ids_ = std::move(ids);
    id_lo_ = lo;
    id_hi_ = hi;
    has_id_range_ = true;
  }
  void forget_id_range() {
    has_id_range_ = false;
    host_ids_.reset();
  }
  bool id_range(int32_t* lo, int32_t* hi) const {
    if (!has_id_range_) return false;
    *lo = id_lo_;
    *hi = id_hi_;
    return true;
  }
  const std::vector<int32_t>* host_ids() const { return host_ids_.get(); }

 private:
  Device& dev_;
  size_t bytes_;
  void* ptr_;
  bool has_id_range_ = false;
  int32_t id_lo_ = 0, id_hi_ = -1;
  std::shared_ptr<const std::vector<int32_t>> host_ids_;
};

// A contiguous row-major float32 or int32 tensor: a buffer, an element offset and a shape.
class Tensor {
 public:
  Tensor() = default;
  static Tensor empty(Device& dev, const Shape& shape, DType dtype = DType::F32);
  static Tensor zeros(Device& dev, const Shape& shape);
  static Tensor from_host(Device& dev, const Shape& shape, const std::vector<float>& values);
  static Tensor from_host_ids(Device& dev, const Shape& shape, const std::vector<int32_t>& ids);

  bool defined() const { return buffer_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_.numel(); }
  DType dtype() const { return dtype_; }
  Device& device() const { return buffer_->device(); }

  float* f32() const;
  int32_t* i32() const;

  // Same memory, another shape of the same numel.
  Tensor view(const Shape& shape) const;
  // A contiguous range of `shape.numel()` elements starting at element `offset` (arenas).
  Tensor slice_view(int64_t offset, const Shape& shape) const;

  // The host-side range of the ids as uploaded (see Buffer::id_range); false when unknown.
  bool host_id_range(int32_t* lo, int32_t* hi) const { return buffer_ && buffer_->id_range(lo, hi); }

  std::vector<float> to_host() const;
  // From the host copy kept at upload when there is one (no device access), else the device.
  std::vector<int32_t> to_host_ids() const;
  void copy_from(const Tensor& other);  // same numel, any devices
  void fill(float v);

 private:
  std::shared_ptr<Buffer> buffer_;
  int64_t offset_ = 0;
  Shape shape_;
  DType dtype_ = DType::F32;
};

}  // namespace sl
