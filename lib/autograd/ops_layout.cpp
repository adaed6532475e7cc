// Shape and layout ops. Results are always contiguous (see tensor/shape.h): reshape shares
// memory, everything else copies with copy_block / permute4 / embedding.
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/shape_check.h"

namespace sl::ops {

namespace {

int normalise_axis(const char* op, int axis, const Shape& s) {
  const int a = axis < 0 ? axis + s.rank() : axis;
  if (a < 0 || a >= s.rank())
    throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) +
                                " out of range for shape " + s.str());
  return a;
}

// The tensor seen as [outer, dims[axis] * inner].
int64_t outer_of(const Shape& s, int axis) {
  int64_t n = 1;
  for (int i = 0; i < axis; ++i) n *= s[i];
  return n;
}
int64_t inner_of(const Shape& s, int axis) {
  int64_t n = 1;
  for (int i = axis + 1; i < s.rank(); ++i) n *= s[i];
  return n;
}

}  // namespace

Var reshape(const Var& a, const Shape& s) {
  if (s.numel() != a.value().numel()) shape_error("reshape", a.shape(), s);
  Graph& g = a.graph();
  Device& dev = g.device();
  // Own node over shared memory: the gradient needs a node of the new shape to land in.
  return g.op(a.value().view(s), a.requires_grad(), [=, &dev](const Tensor& dy) {
    if (!a.adopt_grad(dy))
      dev.axpby(static_cast<size_t>(dy.numel()), 1.0f, dy.f32(), 1.0f, a.grad().f32());
  });
}

Var permute(const Var& a, const std::vector<int>& perm) {
  const Shape& s = a.shape();
  bool ok = s.rank() == 4 && perm.size() == 4;
  int seen = 0;
  for (int p : perm) {
    if (p < 0 || p > 3 || (seen & (1 << p))) ok = false;
    if (p >= 0 && p <= 3) seen |= 1 << p;
  }
  if (!ok) {
    std::vector<int64_t> pv(perm.begin(), perm.end());
    shape_error("permute", s, Shape(pv));
  }
  int dims[4], p4[4], inv[4], ydims[4];
  for (int i = 0; i < 4; ++i) {
    dims[i] = static_cast<int>(s[i]);
    p4[i] = perm[i];
    inv[perm[i]] = i;
  }
  for (int i = 0; i < 4; ++i) ydims[i] = dims[p4[i]];
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape{ydims[0], ydims[1], ydims[2], ydims[3]});
  dev.permute4(dims, p4, a.value().f32(), y.f32(), false);
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    int yd[4], ip[4];
    for (int i = 0; i < 4; ++i) {
      yd[i] = ydims[i];
      ip[i] = inv[i];
    }
    const auto da = a.grad_slot();
    dev.permute4(yd, ip, dy.f32(), da.data, da.accumulate());
  });
}

Var transpose2d(const Var& a) {
  const Shape& s = a.shape();
  if (s.rank() != 2) shape_error("transpose2d", s, Shape{-1, -1});
  const int R = static_cast<int>(s[0]), C = static_cast<int>(s[1]);
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape{C, R});
  const int dims[4] = {1, 1, R, C}, perm[4] = {0, 1, 3, 2};
  dev.permute4(dims, perm, a.value().f32(), y.f32(), false);
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    const int ydims[4] = {1, 1, C, R}, p[4] = {0, 1, 3, 2};
    const auto da = a.grad_slot();
    dev.permute4(ydims, p, dy.f32(), da.data, da.accumulate());
  });
}

Var concat(const std::vector<Var>& parts, int axis) {
  if (parts.empty()) throw std::invalid_argument("concat: no parts");
  const Shape& s0 = parts[0].shape();
  const int ax = normalise_axis("concat", axis, s0);
  std::vector<int64_t> dims = s0.dims();
  dims[ax] = 0;
  bool any_grad = false;
  for (const Var& p : parts) {
    const Shape& s = p.shape();
    if (s.rank() != s0.rank()) shape_error("concat", s0, s);
    for (int i = 0; i < s.rank(); ++i)
      if (i != ax && s[i] != s0[i]) shape_error("concat", s0, s);
    dims[ax] += s[ax];
    any_grad = any_grad || p.requires_grad();
  }
  const Shape out(dims);
  const int outer = static_cast<int>(outer_of(out, ax));
  const int64_t inner = inner_of(out, ax), ld = out[ax] * inner;
  Graph& g = parts[0].graph();
  Device& dev = g.device();
  Tensor y = g.empty(out);
  int64_t offset = 0;
  std::vector<int64_t> offsets;
  for (const Var& p : parts) {
    const int64_t w = p.shape()[ax] * inner;
    offsets.push_back(offset);
    dev.copy_block(outer, static_cast<int>(w), p.value().f32(), w, y.f32() + offset, ld, false);
    offset += w;
  }
  return g.op(y, any_grad, [=, &dev](const Tensor& dy) {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i].requires_grad()) continue;
      const int64_t w = parts[i].shape()[ax] * inner;
      const auto dp = parts[i].grad_slot();  // each part's gradient is written whole
      dev.copy_block(outer, static_cast<int>(w), dy.f32() + offsets[i], ld, dp.data, w,
                     dp.accumulate());
    }
  });
}

Var slice(const Var& a, int axis, int64_t start, int64_t length) {
  const Shape& s = a.shape();
  const int ax = normalise_axis("slice", axis, s);
  if (start < 0 || length < 0 || start + length > s[ax])
    throw std::invalid_argument("slice: [" + std::to_string(start) + ", " +
                                std::to_string(start + length) + ") out of range for axis " +
                                std::to_string(ax) + " of shape " + s.str());
  std::vector<int64_t> dims = s.dims();
  dims[ax] = length;
  const int outer = static_cast<int>(outer_of(s, ax));
  const int64_t inner = inner_of(s, ax), ld = s[ax] * inner, w = length * inner,
                offset = start * inner;
  Graph& g = a.graph();
  Device& dev = g.device();
  Tensor y = g.empty(Shape(dims));
  dev.copy_block(outer, static_cast<int>(w), a.value().f32() + offset, ld, y.f32(), w, false);
  return g.op(y, a.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.copy_block(outer, static_cast<int>(w), dy.f32(), w, a.grad().f32() + offset, ld, true);
  });
}

Var embedding(const Var& table, const Tensor& ids) {
  const Shape& st = table.shape();
  if (st.rank() != 2 || ids.dtype() != DType::I32) shape_error("embedding", st, ids.shape());
  const int n = static_cast<int>(ids.numel()), dim = static_cast<int>(st[1]);
  Graph& g = table.graph();
  Device& dev = g.device();
  // A bad id would read outside the table (on a GPU: a sticky illegal-address fault that
  // kills the context). Check where it is cheap: host memory; on a GPU the range recorded
  // on the host when the ids were uploaded; else (ids produced on the device) a copy back.
  int32_t lo = 0, hi = 0;
  if (n > 0 && ids.device().is_cuda() && ids.host_id_range(&lo, &hi)) {
    if (lo < 0 || hi >= st[0])
      throw std::out_of_range("embedding: id " + std::to_string(lo < 0 ? lo : hi) +
                              " is outside [0, " + std::to_string(st[0]) + ")");
  } else if (n > 0) {
    std::vector<int32_t> host;
    const int32_t* p = ids.i32();
    if (ids.device().is_cuda()) {
      host = ids.to_host_ids();
      p = host.data();
    }
    for (int i = 0; i < n; ++i)
      if (p[i] < 0 || p[i] >= st[0])
        throw std::out_of_range("embedding: id " + std::to_string(p[i]) + " at position " +
                                std::to_string(i) + " is outside [0, " + std::to_string(st[0]) +
                                ")");
  }
  std::vector<int64_t> dims = ids.shape().dims();
  dims.push_back(dim);
  Tensor y = g.empty(Shape(dims));
  dev.embedding(n, dim, table.value().f32(), ids.i32(), y.f32());
  return g.op(y, table.requires_grad(), [=, &dev](const Tensor& dy) {
    dev.embedding_backward(n, dim, dy.f32(), ids.i32(), table.grad().f32());
  });
}

}  // namespace sl::ops
