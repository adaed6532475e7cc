// The per-element formulas of the CUDA kernels (kernel_math.h) run on the host against the
// CPU backend. No GPU needed: this is what verifies the fused kernels' math on CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/cuda/kernel_math.h"
#include "tensor/device.h"
#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

Device& cpu() { return cpu_device(); }

TEST(KernelMathOnHost, UnaryAndGradientsMatchCpu) {
  const size_t n = 2001;
  std::vector<float> x = random_values(n, 1, -8.0f, 8.0f), dy = random_values(n, 2);
  x[0] = 0.0f;
  for (int op = 0; op < 3; ++op) {
    std::vector<float> y(n), dx(n, 0.5f), ky(n), kdx(n, 0.5f);
    cpu().unary(static_cast<Unary>(op), n, x.data(), y.data());
    cpu().unary_backward(static_cast<Unary>(op), n, x.data(), y.data(), dy.data(), dx.data());
    for (size_t i = 0; i < n; ++i) {
      ky[i] = kmath::unary(op, x[i]);
      kdx[i] += kmath::unary_grad(op, x[i], y[i], dy[i]);
    }
    expect_close(y, ky, 1e-5f, 1e-7f, "unary " + std::to_string(op));
    expect_close(dx, kdx, 1e-5f, 1e-7f, "unary_backward " + std::to_string(op));
  }
}

TEST(KernelMathOnHost, DropoutMaskIsBitIdentical) {
  const size_t n = 5000;
  for (float p : {0.0f, 0.1f, 0.5f}) {
    std::vector<float> mask(n), k(n);
    cpu().dropout_mask(n, p, 99, 7, mask.data());
    const float keep = 1.0f / (1.0f - p);
    for (size_t i = 0; i < n; ++i) k[i] = kmath::dropout_value(99, 7, i, p, keep);
    expect_same_bits(mask, k, "dropout p=" + std::to_string(p));
  }
}

TEST(KernelMathOnHost, AttentionMaskPredicateMatchesCpu) {
  const int B = 3, H = 2, Tq = 4, Tk = 6;
  const std::vector<int32_t> lengths = {6, 3, 0};
  for (bool causal : {false, true}) {
    std::vector<float> scores(size_t(B) * H * Tq * Tk, 1.0f), k = scores;
    cpu().attention_mask(B, H, Tq, Tk, lengths.data(), causal, scores.data());
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int q = 0; q < Tq; ++q)
          for (int kk = 0; kk < Tk; ++kk)
            if (kmath::attention_masked(q, kk, lengths[b], causal))
              k[((size_t(b) * H + h) * Tq + q) * Tk + kk] = -1e9f;
    expect_same_bits(scores, k, causal ? "causal" : "lengths only");
  }
}

TEST(KernelMathOnHost, SmoothedCrossEntropyMatchesCpu) {
  const int R = 5, V = 37, pad = 0;
  const std::vector<float> logits = random_values(size_t(R) * V, 3, -5.0f, 5.0f);
  const std::vector<int32_t> targets = {4, 0, 36, 1, 20};
  const std::vector<float> dloss = random_values(R, 4);
  for (float ls : {0.0f, 0.1f}) {
    std::vector<float> loss(R), probs(size_t(R) * V), dl(size_t(R) * V, 0.25f);
    cpu().cross_entropy(R, V, logits.data(), targets.data(), pad, ls, loss.data(), probs.data());
    cpu().cross_entropy_backward(R, V, probs.data(), targets.data(), pad, ls, dloss.data(), dl.data());
    std::vector<float> kloss(R), kdl(size_t(R) * V, 0.25f);
    for (int r = 0; r < R; ++r) {
      if (targets[r] == pad) continue;
      const float* x = logits.data() + size_t(r) * V;
      const float mx = *std::max_element(x, x + V);
      float se = 0.0f, sx = 0.0f;
      for (int v = 0; v < V; ++v) {
        se += std::exp(x[v] - mx);
        sx += x[v] - mx;
      }
      kloss[r] = kmath::smoothed_nll(x[targets[r]], mx, std::log(se), sx, V, ls);
      for (int v = 0; v < V; ++v)
        kdl[size_t(r) * V + v] += dloss[r] * (probs[size_t(r) * V + v] -
                                              kmath::smoothed_target(v, targets[r], V, ls));
    }
    expect_close(loss, kloss, 1e-5f, 1e-6f, "loss ls=" + std::to_string(ls));
    expect_close(dl, kdl, 1e-5f, 1e-6f, "dlogits ls=" + std::to_string(ls));
  }
}

TEST(KernelMathOnHost, GruCellForwardAndBackwardMatchCpu) {
  const int B = 3, H = 7;
  const std::vector<float> xw = random_values(size_t(B) * 3 * H, 5, -2.0f, 2.0f);
  const std::vector<float> hu = random_values(size_t(B) * 3 * H, 6, -2.0f, 2.0f);
  const std::vector<float> hp = random_values(size_t(B) * H, 7);
  const std::vector<float> dh = random_values(size_t(B) * H, 8);
  std::vector<float> h(size_t(B) * H), cache(size_t(B) * 4 * H);
  std::vector<float> dxw(size_t(B) * 3 * H, 0.1f), dhu = dxw, dhp(size_t(B) * H, -0.2f);
  cpu().gru_cell(B, H, xw.data(), hu.data(), hp.data(), h.data(), cache.data());
  cpu().gru_cell_backward(B, H, hp.data(), cache.data(), dh.data(), dxw.data(), dhu.data(), dhp.data());

  std::vector<float> kh(h.size()), kcache(cache.size());
  std::vector<float> kdxw(dxw.size(), 0.1f), kdhu = kdxw, kdhp(dhp.size(), -0.2f);
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < H; ++j) {
      const float* x = xw.data() + size_t(b) * 3 * H + j;
      const float* u = hu.data() + size_t(b) * 3 * H + j;
      const size_t i = size_t(b) * H + j;
      const kmath::GruForward o = kmath::gru_forward(x[0], x[H], x[2 * H], u[0], u[H], u[2 * H], hp[i]);
      kh[i] = o.h;
      float* c = kcache.data() + size_t(b) * 4 * H + j;
      c[0] = o.r;
      c[H] = o.z;
      c[2 * H] = o.n;
      c[3 * H] = u[2 * H];
      const kmath::GruBackward g = kmath::gru_backward(o.r, o.z, o.n, u[2 * H], hp[i], dh[i]);
      float* dx = kdxw.data() + size_t(b) * 3 * H + j;
      float* du = kdhu.data() + size_t(b) * 3 * H + j;
      dx[0] += g.d_ar;
      dx[H] += g.d_az;
      dx[2 * H] += g.d_an;
      du[0] += g.d_ar;
      du[H] += g.d_az;
      du[2 * H] += g.d_hu_n;
      kdhp[i] += g.d_h_prev;
    }
  expect_close(h, kh, 1e-5f, 1e-6f, "h");
  expect_close(cache, kcache, 1e-5f, 1e-6f, "cache (r, z, n, hu_n)");
  expect_close(dxw, kdxw, 1e-4f, 1e-6f, "dxw");
  expect_close(dhu, kdhu, 1e-4f, 1e-6f, "dhu");
  expect_close(dhp, kdhp, 1e-5f, 1e-6f, "dh_prev");
}

TEST(KernelMathOnHost, AdamStepMatchesCpu) {
  const size_t n = 1000;
  const std::vector<float> g = random_values(n, 9);
  std::vector<float> m = random_values(n, 10, -0.1f, 0.1f), v = random_values(n, 11, 0.0f, 0.01f);
  std::vector<float> p = random_values(n, 12);
  std::vector<float> km = m, kv = v, kp = p;
  cpu().adam_update(n, 1e-3f, 0.9f, 0.98f, 1e-8f, g.data(), m.data(), v.data(), p.data());
  for (size_t i = 0; i < n; ++i) kmath::adam_step(g[i], 1e-3f, 0.9f, 0.98f, 1e-8f, km[i], kv[i], kp[i]);
  // Each operation rounded on its own (mul_rn/add_rn keep nvcc from contracting into FMAs):
  // bit-identical to the CPU backend, also where m cancels towards 0.
  expect_same_bits(m, km, "m");
  expect_same_bits(v, kv, "v");
  expect_same_bits(p, kp, "p");
}

// With smoothing 0 the loss must not depend on the other logits' sum: a -inf logit there
// (a fully masked class) gave 0 * -inf = NaN on the device while the CPU backend is finite.
TEST(KernelMathOnHost, CrossEntropyWithoutSmoothingIgnoresMinusInfLogits) {
  const int V = 6;
  std::vector<float> x = {0.5f, -INFINITY, 1.0f, -2.0f, -INFINITY, 0.0f};
  const std::vector<int32_t> t = {2};
  std::vector<float> loss(1), probs(V);
  cpu().cross_entropy(1, V, x.data(), t.data(), -1, 0.0f, loss.data(), probs.data());
  ASSERT_TRUE(std::isfinite(loss[0]));
  const float mx = 1.0f;
  float se = 0.0f, sx = 0.0f;
  for (float xv : x) {
    se += std::exp(xv - mx);
    sx += xv - mx;
  }
  const float k = kmath::smoothed_nll(x[2], mx, std::log(se), sx, V, 0.0f);
  EXPECT_TRUE(std::isfinite(k));
  EXPECT_NEAR(k, loss[0], 1e-6f);
}

}  // namespace
}  // namespace sl::cuda_test
