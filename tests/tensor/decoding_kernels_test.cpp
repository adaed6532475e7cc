// length_mask and row_top_k (issue 32: padding masks built on the device, decoding's choice
// made there) on the CPU backend against loops written from their definitions in device.h,
// and the host copy Tensor keeps of uploaded ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/counter_rng.h"
#include "tensor/profiling_device.h"
#include "tensor/tensor.h"

namespace sl {
namespace {

TEST(LengthMask, OnesOrMeanWeightsInsideEachSentenceZeroPast) {
  Device& dev = cpu_device();
  const std::vector<int32_t> len = {1, 4, 3, 6};
  const int B = 4, S = 6;
  std::vector<float> y(B * S, -7.0f);
  for (int offset : {0, 2, 5}) {
    for (bool mean : {false, true}) {
      dev.length_mask(B, S, offset, len.data(), mean, y.data());
      for (int b = 0; b < B; ++b)
        for (int s = 0; s < S; ++s) {
          const float expected = offset + s < len[b] ? (mean ? 1.0f / len[b] : 1.0f) : 0.0f;
          EXPECT_EQ(0, std::memcmp(&expected, &y[b * S + s], sizeof(float)))
              << "b " << b << " s " << s << " offset " << offset << " mean " << mean;
        }
    }
  }
}

TEST(AttentionMask, WithoutKeyLengthsOnlyTheCausalMaskApplies) {
  Device& dev = cpu_device();
  const int B = 2, H = 2, Tq = 5, Tk = 5;
  const std::vector<int32_t> full(B, Tk);
  for (bool causal : {false, true}) {
    std::vector<float> a(B * H * Tq * Tk), b;
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
    b = a;
    dev.attention_mask(B, H, Tq, Tk, full.data(), causal, a.data());
    dev.attention_mask(B, H, Tq, Tk, nullptr, causal, b.data());
    EXPECT_EQ(a, b) << "causal " << causal;
  }
}

// The definition: sort every column by (key descending, column ascending), NaN keys last.
void reference_top_k(int cols, const float* x, const float* offset, int k, std::vector<float>& v,
                     std::vector<int32_t>& c) {
  std::vector<int32_t> order(static_cast<size_t>(cols));
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int32_t i) { return offset ? *offset + x[i] : x[i]; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const float ka = key(a), kb = key(b);
    if (std::isnan(ka) || std::isnan(kb)) return !std::isnan(ka) && std::isnan(kb);
    return ka > kb;  // equal keys keep column order (stable)
  });
  v.clear();
  c.clear();
  for (int j = 0; j < k; ++j) {
    v.push_back(key(order[j]));
    c.push_back(order[j]);
  }
}

TEST(RowTopK, BestColumnsByKeyThenColumnWithNaNLast) {
  Device& dev = cpu_device();
  const int rows = 5, cols = 300;
  CounterRng rng(9, 1);
  std::vector<float> x(rows * cols);
  for (float& e : x) e = -10.0f * rng.uniform();
  for (size_t i = 0; i < x.size(); i += 5) x[i] = x[i / 3];        // many ties
  for (size_t i = 2; i < x.size(); i += 41) x[i] = std::nanf("");  // NaN
  x[0] = 0.0f, x[1] = -0.0f, x[cols] = INFINITY, x[cols + 1] = -INFINITY;
  const std::vector<float> offsets = {0.0f, -2.5f, -1e-4f, -100.0f, 3.0f};
  for (int k : {1, 3, 8, cols}) {
    for (bool with_offsets : {false, true}) {
      std::vector<float> v(rows * k);
      std::vector<int32_t> c(rows * k);
      dev.row_top_k(rows, cols, x.data(), with_offsets ? offsets.data() : nullptr, k, v.data(),
                    c.data());
      for (int r = 0; r < rows; ++r) {
        std::vector<float> rv;
        std::vector<int32_t> rc;
        reference_top_k(cols, x.data() + r * cols, with_offsets ? &offsets[r] : nullptr, k, rv, rc);
        EXPECT_EQ(rc, std::vector<int32_t>(c.begin() + r * k, c.begin() + (r + 1) * k))
            << "row " << r << " k " << k << " offsets " << with_offsets;
        EXPECT_EQ(0, std::memcmp(rv.data(), v.data() + r * k, k * sizeof(float)));
      }
    }
  }
  std::vector<float> v(1);
  std::vector<int32_t> c(1);
  EXPECT_THROW(dev.row_top_k(1, 3, x.data(), nullptr, 4, v.data(), c.data()),
               std::invalid_argument);
}

// Uploaded ids are read back from the host copy: no device access (on a GPU a read-back
// waits for all queued work), until something may have overwritten them.
TEST(TensorHostIds, UploadedIdsAreReadBackWithoutTheDevice) {
  ProfilingDevice dev(cpu_device());
  Tensor ids = Tensor::from_host_ids(dev, Shape{2, 3}, {5, 6, 7, 8, 9, 10});
  dev.reset();
  EXPECT_EQ(ids.to_host_ids(), (std::vector<int32_t>{5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(ids.slice_view(3, Shape{2}).to_host_ids(), (std::vector<int32_t>{8, 9}));
  EXPECT_EQ(0u, dev.kernels().count("to_host"));
  // Overwritten through copy_from: the copy is dropped and the device is read.
  Tensor other = Tensor::from_host_ids(dev, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  ids.copy_from(other);
  dev.reset();
  EXPECT_EQ(ids.to_host_ids(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(1, dev.kernels().at("to_host").calls);
}

}  // namespace
}  // namespace sl
