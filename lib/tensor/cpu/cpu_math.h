#pragma once
// Scalar math for the CPU kernels, written without library calls or branches so that loops
// calling it auto-vectorise (glibc's expf/tanhf would keep every loop scalar). Include
// cpu_vectorize.h first.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sl::cpu {

// Branch-free, so loops calling them vectorise. Needs the TU to be compiled without
// -ftrapping-math (see cpu_vectorize.h): otherwise g++ 12 refuses to if-convert the selects.

// exp with ~1 ulp relative error on [-87.3, 88] (Cephes expf); exactly 0 below (so the -1e9
// of masked attention scores gets weight 0), exp(88) above.
inline float exp(float x) {
  const float keep = x < -87.33654f ? 0.0f : 1.0f;
  x = x > 88.0f ? 88.0f : x;
  x = x < -87.33654f ? -87.33654f : x;
  // n = round(x / ln 2) by the 1.5 * 2^23 trick: the sum's low mantissa bits hold n.
  const float t = x * 1.44269504088896341f + 12582912.0f;
  int32_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  const int32_t n = tb - 0x4B400000;
  const float fn = t - 12582912.0f;
  x = x - fn * 0.693359375f - fn * -2.12194440e-4f;
  const float z = x * x;
  float y = 1.9875691500e-4f;
  y = y * x + 1.3981999507e-3f;
  y = y * x + 8.3334519073e-3f;
  y = y * x + 4.1665795894e-2f;
  y = y * x + 1.6666665459e-1f;
  y = y * x + 5.0000001201e-1f;
  y = y * z + x + 1.0f;
  const int32_t sb = (n + 127) << 23;
  float scale;
  std::memcpy(&scale, &sb, sizeof scale);
  return y * scale * keep;
}

// tanh: odd polynomial for |x| < 0.625 (where 1 - 2/(e^2|x| + 1) would cancel), the exp form
// elsewhere (Cephes tanhf).
inline float tanh(float x) {
  const float ax = x < 0.0f ? -x : x;
  const bool near0 = ax < 0.625f;
  const float xs = near0 ? x : 0.0f;  // keeps the polynomial finite far out
  const float z = xs * xs;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * xs + xs;
  const float big = 1.0f - 2.0f / (exp(2.0f * ax) + 1.0f);
  return near0 ? small : (x < 0.0f ? -big : big);
}

inline float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

// Sums in double over 8 interleaved partial sums: fixed order, so bit-reproducible.
inline double sum(size_t n, const float* __restrict x) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += x[i + l];
  double s = 0;
  for (; i < n; ++i) s += x[i];
  for (int l = 0; l < 8; ++l) s += acc[l];
  return s;
}

inline double sum_squares(size_t n, const float* __restrict x) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += static_cast<double>(x[i + l]) * x[i + l];
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  for (int l = 0; l < 8; ++l) s += acc[l];
  return s;
}

// Float sum / max of one row with 16 partial lanes (vectorisable, fixed order).
inline float row_sum(int n, const float* __restrict x) {
  float acc[16] = {};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += x[i + l];
  float s = 0;
  for (; i < n; ++i) s += x[i];
  for (int l = 0; l < 16; ++l) s += acc[l];
  return s;
}

inline float row_max(int n, const float* __restrict x) {
  float m = n > 0 ? x[0] : 0.0f;
  float acc[16];
  for (int l = 0; l < 16; ++l) acc[l] = m;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] = x[i + l] > acc[l] ? x[i + l] : acc[l];
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (int l = 0; l < 16; ++l) m = acc[l] > m ? acc[l] : m;
  return m;
}

// <a, b> of one row in float with 16 lanes.
inline float row_dot(int n, const float* __restrict a, const float* __restrict b) {
  float acc[16] = {};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) acc[l] += a[i + l] * b[i + l];
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (int l = 0; l < 16; ++l) s += acc[l];
  return s;
}

}  // namespace sl::cpu
