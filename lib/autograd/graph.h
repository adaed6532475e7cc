#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/parameter_arena.h"
#include "tensor/tensor.h"

namespace sl {

class Graph;

// One value in the expression graph: its tensor, its gradient (allocated on first use, or a
// view into the parameter arena for parameters) and how to push its gradient to its inputs.
struct Node {
  Tensor value;
  Tensor grad;
  bool requires_grad = false;
  // Given this node's gradient dy, accumulates into the inputs' gradients.
  std::function<void(const Tensor& dy)> backward;
};

// A handle to a node; cheap to copy. Ops take and return Vars.
class Var {
 public:
  Var() = default;
  Var(Node* n, Graph* g) : node_(n), graph_(g) {}
  bool defined() const { return node_ != nullptr; }
  const Tensor& value() const { return node_->value; }
  const Shape& shape() const { return node_->value.shape(); }
  bool requires_grad() const { return node_->requires_grad; }
  // The gradient tensor, zero-allocated on first call.
  Tensor& grad() const;
  // For a backward that writes EVERY element of this gradient: where to write, and whether
  // the buffer was just allocated without zeroing (then the kernel must overwrite: beta 0,
  // accumulate false), which saves a fill pass and a read pass over it. Adding to a zeroed
  // buffer and overwriting give the same bits, so results do not change.
  struct GradSlot {
    float* data;
    bool fresh;
    float beta() const { return fresh ? 0.0f : 1.0f; }
    bool accumulate() const { return !fresh; }
  };
  GradSlot grad_slot() const;
  // For a backward whose gradient for this input IS its own dy (add, sub's first operand,
  // reshape): when this gradient was never allocated, adopt dy's buffer (no copy; the op's own
  // gradient is released right after its backward) and return true. False: it exists, add dy.
  bool adopt_grad(const Tensor& dy) const;
  Node* node() const { return node_; }
  Graph& graph() const { return *graph_; }

 private:
  Node* node_ = nullptr;
  Graph* graph_ = nullptr;
};

// A reverse-mode tape for one forward/backward pass. Nodes are recorded in creation order,
// so backward() walks the tape in reverse: no topological sort needed.
class Graph {
 public:
  // `seed` and `dropout_enabled` drive dropout: the k-th dropout of this graph uses the
  // counter stream (seed, k), so masks are reproducible without saved RNG state.
  Graph(Device& dev, bool dropout_enabled, uint64_t seed);
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Device& device() const { return *dev_; }
  bool dropout_enabled() const { return dropout_enabled_; }
  uint64_t seed() const { return seed_; }
  uint64_t next_dropout_stream() { return dropout_counter_++; }

  // A leaf without gradient (inputs, masks, constants).
  Var constant(Tensor value);
  // A parameter: its value and gradient are views into the arena (gradients accumulate
  // straight into the flat vector the distributed layer exchanges).
  Var param(const ParameterArena& arena, int index);
  // A leaf that receives a gradient of its own (gradient checks).
  Var leaf(Tensor value);
  // The output of an op. `requires_grad` should be true iff any input requires it; then
  // `backward` is recorded on the tape.
  Var op(Tensor value, bool requires_grad, std::function<void(const Tensor& dy)> backward);

  // Seeds d(loss)/d(loss) = 1 for the scalar `loss` and runs the tape backwards, once: an
  // op's gradient and backward closure are freed as soon as they have been used (only
  // leaves and parameters keep gradients).
  void backward(const Var& loss);

  Tensor empty(const Shape& s, DType t = DType::F32) const { return Tensor::empty(*dev_, s, t); }
  Tensor zeros(const Shape& s) const { return Tensor::zeros(*dev_, s); }

 private:
  Device* dev_;
  bool dropout_enabled_;
  uint64_t seed_;
  uint64_t dropout_counter_ = 0;
  std::vector<std::unique_ptr<Node>> tape_;
};

}  // namespace sl
