#pragma once
#include <cstdint>
#include <cstring>

namespace sl {

// One sent value of S_n: its position in the flat parameter arena and its value.
// The layout (little-endian int32 + float32, 8 bytes) is also the `pairs32` wire format.
struct SparsePair {
  uint32_t index;
  float value;
};
static_assert(sizeof(SparsePair) == 8, "SparsePair must be 8 packed bytes");

// |x| as an unsigned integer: for non-negative floats the bit pattern orders like the value,
// so selecting on keys equals selecting on |x|; a NaN's key exceeds +inf's, so a NaN
// gradient is always sent (and shows up in G) instead of hiding in the residual.
inline uint32_t abs_key(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u & 0x7fffffffu;
}

inline float key_value(uint32_t key) {
  float x;
  std::memcpy(&x, &key, sizeof x);
  return x;
}

}  // namespace sl
