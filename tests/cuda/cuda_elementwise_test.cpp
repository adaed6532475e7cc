// Element-wise and fused kernels: CUDA against the CPU backend on the same inputs.
#include <gtest/gtest.h>

#include <string>

#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

using CudaElementwise = CudaVsCpu;

// Larger than the 8192-block cap times 256 threads, so grid-stride loops wrap around.
constexpr size_t kBig = 3 * 1000 * 1000 + 7;
constexpr size_t kOdd = 1000;

TEST_F(CudaElementwise, FillAndAxpby) {
  Pair y = random_pair(kBig, 1);
  on_both([&](Device& d, int s) { d.fill(kBig, -2.5f, y.f(s)); });
  expect_same_bits(y, "fill");
  for (float b : {0.0f, 1.0f, -0.75f}) {
    Pair x = random_pair(kBig, 2), z = random_pair(kBig, 3);
    on_both([&](Device& d, int s) { d.axpby(kBig, 1.5f, x.f(s), b, z.f(s)); });
    expect_close(z, "axpby b=" + std::to_string(b));
  }
}

TEST_F(CudaElementwise, MulAddBiasMulRows) {
  const int rows = 37, cols = 53;
  const size_t n = size_t(rows) * cols;
  Pair a = random_pair(n, 4), b = random_pair(n, 5);
  for (bool acc : {false, true}) {
    Pair y = random_pair(n, 6);
    on_both([&](Device& d, int s) { d.mul(n, a.f(s), b.f(s), y.f(s), acc); });
    expect_close(y, std::string("mul acc=") + (acc ? "1" : "0"));
    Pair m = random_pair(rows, 7);
    Pair z = random_pair(n, 8);
    on_both([&](Device& d, int s) { d.mul_rows(rows, cols, a.f(s), m.f(s), z.f(s), acc); });
    expect_close(z, std::string("mul_rows acc=") + (acc ? "1" : "0"));
  }
  Pair bias = random_pair(cols, 9), y = random_pair(n, 10);
  on_both([&](Device& d, int s) { d.add_bias(rows, cols, y.f(s), bias.f(s), y.f(s)); });  // in place
  expect_close(y, "add_bias in place");
}

TEST_F(CudaElementwise, UnaryForwardAndBackward) {
  const char* names[] = {"relu", "tanh", "sigmoid"};
  for (int op = 0; op < 3; ++op) {
    Pair x = random_pair(kOdd, 11, -6.0f, 6.0f), y = random_pair(kOdd, 12);
    Pair dy = random_pair(kOdd, 13), dx = random_pair(kOdd, 14);
    on_both([&](Device& d, int s) {
      d.unary(static_cast<Unary>(op), kOdd, x.f(s), y.f(s));
      d.unary_backward(static_cast<Unary>(op), kOdd, x.f(s), y.f(s), dy.f(s), dx.f(s));
    });
    expect_close(y, std::string(names[op]), 1e-5f, 1e-7f);
    expect_close(dx, std::string(names[op]) + " backward", 1e-5f, 1e-6f);
  }
}

TEST_F(CudaElementwise, BroadcastScalarAcc) {
  Pair dy = random_pair(1, 15), dx = random_pair(kOdd, 16);
  on_both([&](Device& d, int s) { d.broadcast_scalar_acc(kOdd, -0.5f, dy.f(s), dx.f(s)); });
  expect_close(dx, "broadcast_scalar_acc");
}

TEST_F(CudaElementwise, DropoutMaskIsBitIdentical) {
  for (float p : {0.0f, 0.1f, 0.3f}) {
    Pair mask = random_pair(kBig, 17);
    on_both([&](Device& d, int s) { d.dropout_mask(kBig, p, 1234, 56, mask.f(s)); });
    expect_same_bits(mask, "dropout p=" + std::to_string(p));
  }
}

TEST_F(CudaElementwise, GruCellForwardAndBackward) {
  const int B = 13, H = 70;
  Pair xw = random_pair(size_t(B) * 3 * H, 18, -2.0f, 2.0f);
  Pair hu = random_pair(size_t(B) * 3 * H, 19, -2.0f, 2.0f);
  Pair hp = random_pair(size_t(B) * H, 20), dh = random_pair(size_t(B) * H, 21);
  Pair h = random_pair(size_t(B) * H, 22), cache = random_pair(size_t(B) * 4 * H, 23);
  Pair dxw = random_pair(size_t(B) * 3 * H, 24), dhu = random_pair(size_t(B) * 3 * H, 25);
  Pair dhp = random_pair(size_t(B) * H, 26);
  on_both([&](Device& d, int s) {
    d.gru_cell(B, H, xw.f(s), hu.f(s), hp.f(s), h.f(s), cache.f(s));
    d.gru_cell_backward(B, H, hp.f(s), cache.f(s), dh.f(s), dxw.f(s), dhu.f(s), dhp.f(s));
  });
  expect_close(h, "gru h", 1e-5f, 1e-6f);
  expect_close(cache, "gru cache", 1e-5f, 1e-6f);
  expect_close(dxw, "gru dxw", 1e-4f, 1e-6f);
  expect_close(dhu, "gru dhu", 1e-4f, 1e-6f);
  expect_close(dhp, "gru dh_prev", 1e-4f, 1e-6f);
}

TEST_F(CudaElementwise, AdamUpdate) {
  const size_t n = 100003;
  Pair g = random_pair(n, 27), m = random_pair(n, 28, -0.1f, 0.1f);
  Pair v = random_pair(n, 29, 0.0f, 0.01f), p = random_pair(n, 30);
  on_both([&](Device& d, int s) {
    for (int step = 0; step < 3; ++step)
      d.adam_update(n, 1e-3f, 0.9f, 0.98f, 1e-8f, g.f(s), m.f(s), v.f(s), p.f(s));
  });
  expect_close(m, "adam m", 1e-5f, 1e-9f);
  expect_close(v, "adam v", 1e-5f, 1e-12f);
  expect_close(p, "adam p", 1e-5f, 1e-7f);
}

TEST_F(CudaElementwise, AdditiveAttentionHidden) {
  const int B = 5, S = 37, A = 96;
  const size_t n = size_t(B) * S * A;
  Pair keys = random_pair(n, 31), q = random_pair(size_t(B) * A, 32), t = random_pair(n, 33);
  Pair ds = random_pair(size_t(B) * S, 34), v = random_pair(A, 35);
  Pair dkeys = random_pair(n, 36), dq = random_pair(size_t(B) * A, 37);
  on_both([&](Device& d, int s) {
    d.tanh_add_rows(B, S, A, keys.f(s), q.f(s), t.f(s));
    d.tanh_add_rows_backward(B, S, A, t.f(s), ds.f(s), v.f(s), dkeys.f(s), true, dq.f(s), false);
    d.tanh_add_rows_backward(B, S, A, t.f(s), ds.f(s), v.f(s), dkeys.f(s), true, dq.f(s), true);
  });
  expect_close(t, "tanh_add t", 1e-5f, 1e-6f);
  expect_close(dkeys, "tanh_add dkeys", 1e-4f, 1e-6f);
  expect_close(dq, "tanh_add dq", 1e-4f, 1e-5f);
}

}  // namespace
}  // namespace sl::cuda_test
