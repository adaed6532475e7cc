// Row kernels: softmaxes, layer norm, attention masks, label-smoothed cross-entropy.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cuda_test_util.h"

namespace sl::cuda_test {
namespace {

using CudaRows = CudaVsCpu;

// Widths around the block-size steps of row_threads() (32 ... 1024 threads).
const int kWidths[] = {1, 5, 32, 129, 512, 1000, 5003};

std::string size_name(const char* op, int rows, int cols) {
  return std::string(op) + " " + std::to_string(rows) + "x" + std::to_string(cols);
}

TEST_F(CudaRows, SoftmaxAndLogSoftmaxWithBackward) {
  for (int cols : kWidths) {
    const int rows = 23;
    const size_t n = size_t(rows) * cols;
    Pair x = random_pair(n, 1, -10.0f, 10.0f), dy = random_pair(n, 2);
    Pair y = random_pair(n, 3), ly = random_pair(n, 4), dx = random_pair(n, 5), ldx = random_pair(n, 6);
    on_both([&](Device& d, int s) {
      d.softmax(rows, cols, x.f(s), y.f(s));
      d.log_softmax(rows, cols, x.f(s), ly.f(s));
      d.softmax_backward(rows, cols, y.f(s), dy.f(s), dx.f(s));
      d.log_softmax_backward(rows, cols, ly.f(s), dy.f(s), ldx.f(s));
    });
    expect_close(y, size_name("softmax", rows, cols), 1e-4f, 1e-7f);
    expect_close(ly, size_name("log_softmax", rows, cols), 1e-4f, 1e-5f);
    expect_close(dx, size_name("softmax_backward", rows, cols), 1e-4f, 1e-6f);
    expect_close(ldx, size_name("log_softmax_backward", rows, cols), 1e-4f, 1e-5f);
  }
}

TEST_F(CudaRows, SoftmaxInPlaceAndMaskedScores) {
  const int B = 2, H = 3, Tq = 9, Tk = 11;
  const size_t n = size_t(B) * H * Tq * Tk;
  const std::vector<int32_t> lengths = {11, 4};
  for (bool causal : {false, true}) {
    Pair scores = random_pair(n, 7, -3.0f, 3.0f);
    Pair len = pair_ids(lengths);
    on_both([&](Device& d, int s) {
      d.attention_mask(B, H, Tq, Tk, len.i(s), causal, scores.f(s));
      d.softmax(B * H * Tq, Tk, scores.f(s), scores.f(s));
    });
    expect_close(scores, causal ? "masked softmax causal" : "masked softmax", 1e-4f, 1e-7f);
  }
  for (bool causal : {false, true}) {
    Pair scores = random_pair(n, 8);
    Pair len = pair_ids(lengths);
    on_both([&](Device& d, int s) { d.attention_mask(B, H, Tq, Tk, len.i(s), causal, scores.f(s)); });
    expect_same_bits(scores, causal ? "attention_mask causal" : "attention_mask");
  }
}

TEST_F(CudaRows, LengthMaskIsBitIdentical) {
  const std::vector<int32_t> lengths = {1, 7, 3, 12, 5};
  const int B = 5;
  for (int S : {1, 12}) {
    for (int offset : {0, 4, 11}) {
      for (bool mean : {false, true}) {
        Pair len = pair_ids(lengths), y = random_pair(size_t(B) * S, 20);
        on_both([&](Device& d, int s) { d.length_mask(B, S, offset, len.i(s), mean, y.f(s)); });
        expect_same_bits(y, "length_mask S " + std::to_string(S) + " offset " +
                                std::to_string(offset) + (mean ? " mean" : ""));
      }
    }
  }
}

// Decoding's per-row top-k: the same columns and the same float keys (offset + x is one
// rounding on both sides), over block-size steps, with ties, +-0, infinities and NaN.
TEST_F(CudaRows, RowTopKIsBitIdenticalWithTiesAndNaN) {
  for (int cols : {1, 5, 33, 129, 1000, 32000}) {
    const int rows = 7;
    std::vector<float> x = random_values(size_t(rows) * cols, 21, -20.0f, 0.0f);
    for (size_t i = 0; i < x.size(); i += 7) x[i] = x[i / 2];        // repeated values
    for (size_t i = 3; i < x.size(); i += 97) x[i] = std::nanf("");  // NaN ranks last
    if (x.size() > 4) x[1] = 0.0f, x[2] = -0.0f, x[4] = INFINITY;
    const std::vector<float> offsets = {0.0f, -1.5f, -3.25f, 0.0f, -1e-3f, -7.0f, -0.5f};
    for (int k : {1, 2, 6}) {
      if (k > cols) continue;
      for (bool with_offsets : {false, true}) {
        Pair xs = pair(x), off = pair(offsets);
        Pair val = random_pair(size_t(rows) * k, 22);
        // Kernel output: no host copy of uploaded ids (Tensor::from_host_ids keeps one).
        const Shape ks{int64_t(rows) * k};
        Pair idx{{Tensor::empty(dev(0), ks, DType::I32), Tensor::empty(dev(1), ks, DType::I32)}};
        on_both([&](Device& d, int s) {
          d.row_top_k(rows, cols, xs.f(s), with_offsets ? off.f(s) : nullptr, k, val.f(s),
                      idx.i(s));
        });
        const std::string what = "row_top_k " + size_name("", rows, cols) + " k " +
                                 std::to_string(k) + (with_offsets ? " offsets" : "");
        expect_same_bits(val, what + " values");
        EXPECT_EQ(idx.t[0].to_host_ids(), idx.t[1].to_host_ids()) << what << " indices";
      }
    }
  }
}

TEST_F(CudaRows, LayerNormForwardAndBackward) {
  for (int cols : kWidths) {
    const int rows = 67;
    const size_t n = size_t(rows) * cols;
    Pair x = random_pair(n, 9, -3.0f, 5.0f), gamma = random_pair(cols, 10, 0.5f, 1.5f);
    Pair beta = random_pair(cols, 11), y = random_pair(n, 12);
    Pair mean = random_pair(rows, 13), rstd = random_pair(rows, 14);
    Pair dy = random_pair(n, 15), dx = random_pair(n, 16);
    Pair dgamma = random_pair(cols, 17), dbeta = random_pair(cols, 18);
    on_both([&](Device& d, int s) {
      d.layer_norm(rows, cols, 1e-5f, x.f(s), gamma.f(s), beta.f(s), y.f(s), mean.f(s), rstd.f(s));
      d.layer_norm_backward(rows, cols, x.f(s), gamma.f(s), mean.f(s), rstd.f(s), dy.f(s),
                            dx.f(s), dgamma.f(s), dbeta.f(s));
    });
    expect_close(y, size_name("layer_norm y", rows, cols), 1e-4f, 2e-5f);
    expect_close(mean, size_name("layer_norm mean", rows, cols), 1e-4f, 1e-6f);
    expect_close(rstd, size_name("layer_norm rstd", rows, cols), 1e-4f, 1e-6f);
    // cols == 1 normalises to 0 with rstd = 1/sqrt(eps) ~ 316: the exact dx is 0, and what
    // either backend adds is dy*gamma - mean(dy*gamma) = rounding noise (an FMA on the device
    // leaves at most half an ulp of dy*gamma, ~3e-8) times 316, ~1e-5. 1e-4 bounds that and
    // still catches a real formula error (order 1).
    expect_close(dx, size_name("layer_norm dx", rows, cols), 1e-3f, 1e-4f);
    expect_close(dgamma, size_name("layer_norm dgamma", rows, cols), 1e-4f, 1e-5f);
    expect_close(dbeta, size_name("layer_norm dbeta", rows, cols), 1e-4f, 1e-5f);
  }
}

TEST_F(CudaRows, CrossEntropyWithSmoothingAndPadding) {
  for (int V : {7, 1000, 32000}) {
    const int R = 19, pad = 0;
    std::vector<int32_t> t = random_ids(R, 19, V);
    t[3] = pad;
    t[10] = pad;
    for (float ls : {0.0f, 0.1f}) {
      Pair logits = random_pair(size_t(R) * V, 20, -8.0f, 8.0f), targets = pair_ids(t);
      Pair loss = random_pair(R, 21), probs = random_pair(size_t(R) * V, 22);
      Pair dloss = random_pair(R, 23), dlogits = random_pair(size_t(R) * V, 24);
      on_both([&](Device& d, int s) {
        d.cross_entropy(R, V, logits.f(s), targets.i(s), pad, ls, loss.f(s), probs.f(s));
        d.cross_entropy_backward(R, V, probs.f(s), targets.i(s), pad, ls, dloss.f(s), dlogits.f(s));
      });
      const std::string what = "V=" + std::to_string(V) + " ls=" + std::to_string(ls);
      expect_close(loss, "cross_entropy loss " + what, 1e-4f, 1e-5f);
      expect_close(probs, "cross_entropy probs " + what, 1e-4f, 1e-8f);
      expect_close(dlogits, "cross_entropy_backward " + what, 1e-4f, 1e-6f);
    }
  }
}

TEST_F(CudaRows, RowKernelsAreBitwiseRepeatable) {
  const int rows = 300, cols = 777;
  const size_t n = size_t(rows) * cols;
  Pair x = random_pair(n, 25), gamma = random_pair(cols, 26), dy = random_pair(n, 27);
  Pair mean = random_pair(rows, 28), rstd = random_pair(rows, 29), y = random_pair(n, 30);
  std::vector<float> first[3];
  for (int run = 0; run < 2; ++run) {
    Pair dx = pair(std::vector<float>(n, 0.0f)), dg = pair(std::vector<float>(cols, 0.0f));
    Pair db = pair(std::vector<float>(cols, 0.0f));
    gpu().layer_norm(rows, cols, 1e-5f, x.f(1), gamma.f(1), gamma.f(1), y.f(1), mean.f(1), rstd.f(1));
    gpu().layer_norm_backward(rows, cols, x.f(1), gamma.f(1), mean.f(1), rstd.f(1), dy.f(1),
                              dx.f(1), dg.f(1), db.f(1));
    const std::vector<float> got[3] = {dx.host(1), dg.host(1), db.host(1)};
    for (int k = 0; k < 3; ++k) {
      if (run == 0) first[k] = got[k];
      else cuda_test::expect_same_bits(first[k], got[k], "layer_norm_backward output " + std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace sl::cuda_test
