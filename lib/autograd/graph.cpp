#include "autograd/graph.h"

#include <stdexcept>

namespace sl {

Tensor& Var::grad() const {
  if (!node_->grad.defined())
    node_->grad = Tensor::zeros(node_->value.device(), node_->value.shape());
  return node_->grad;
}

Var::GradSlot Var::grad_slot() const {
  const bool fresh = !node_->grad.defined();
  if (fresh) node_->grad = Tensor::empty(node_->value.device(), node_->value.shape());
  return {node_->grad.f32(), fresh};
}

bool Var::adopt_grad(const Tensor& dy) const {
  if (node_->grad.defined()) return false;
  node_->grad = dy.view(node_->value.shape());
  return true;
}

Graph::Graph(Device& dev, bool dropout_enabled, uint64_t seed)
    : dev_(&dev), dropout_enabled_(dropout_enabled), seed_(seed) {}

Var Graph::constant(Tensor value) {
  tape_.push_back(std::make_unique<Node>());
  tape_.back()->value = std::move(value);
  return Var(tape_.back().get(), this);
}

Var Graph::param(const ParameterArena& arena, int index) {
  tape_.push_back(std::make_unique<Node>());
  Node& n = *tape_.back();
  n.value = arena.value(index);
  n.grad = arena.grad(index);
  n.requires_grad = true;
  return Var(&n, this);
}

Var Graph::leaf(Tensor value) {
  Var v = constant(std::move(value));
  v.node()->requires_grad = true;
  return v;
}

Var Graph::op(Tensor value, bool requires_grad, std::function<void(const Tensor&)> backward) {
  tape_.push_back(std::make_unique<Node>());
  Node& n = *tape_.back();
  n.value = std::move(value);
  n.requires_grad = requires_grad;
  if (requires_grad) n.backward = std::move(backward);
  return Var(&n, this);
}

void Graph::backward(const Var& loss) {
  if (loss.value().numel() != 1) throw std::logic_error("Graph::backward: loss is not a scalar");
  if (!loss.requires_grad())
    throw std::logic_error("Graph::backward: loss does not depend on any parameter");
  loss.grad().fill(1.0f);
  for (auto it = tape_.rbegin(); it != tape_.rend(); ++it) {
    Node& n = **it;
    // A node whose gradient was never touched contributes nothing: skip its backward.
    if (!n.backward) continue;  // leaves and parameters keep their gradients
    if (n.grad.defined()) n.backward(n.grad);
    // The op's gradient is now in its inputs' gradients and its closure will not run again:
    // freeing both here (not at the end of the pass) keeps only the backward frontier's
    // gradients alive, as PyTorch does, instead of every intermediate's at once.
    n.backward = nullptr;
    n.grad = Tensor();
  }
}

}  // namespace sl
