#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace sl {

// Dimensions of a row-major tensor. Strides are derived (tensors are always contiguous:
// transposes and permutes materialise, which keeps every kernel a plain loop or GEMM).
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> d) : d_(d) {}
  explicit Shape(std::vector<int64_t> d) : d_(std::move(d)) {}

  int rank() const { return static_cast<int>(d_.size()); }
  int64_t operator[](int i) const { return d_[i < 0 ? i + rank() : i]; }
  int64_t& operator[](int i) { return d_[i < 0 ? i + rank() : i]; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t x : d_) n *= x;
    return n;
  }
  // Product of the dims before the last: the number of rows of the tensor seen as 2-D.
  int64_t rows() const { return rank() == 0 ? 1 : numel() / d_.back(); }
  int64_t cols() const { return rank() == 0 ? 1 : d_.back(); }
  std::vector<int64_t> strides() const {
    std::vector<int64_t> s(d_.size(), 1);
    for (int i = rank() - 2; i >= 0; --i) s[i] = s[i + 1] * d_[i + 1];
    return s;
  }
  const std::vector<int64_t>& dims() const { return d_; }
  bool operator==(const Shape& o) const { return d_ == o.d_; }
  bool operator!=(const Shape& o) const { return d_ != o.d_; }
  std::string str() const {
    std::string s = "[";
    for (size_t i = 0; i < d_.size(); ++i) s += (i ? "," : "") + std::to_string(d_[i]);
    return s + "]";
  }

 private:
  std::vector<int64_t> d_;
};

}  // namespace sl
