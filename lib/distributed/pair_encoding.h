#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/sparse_pair.h"

namespace sl {

// How S_n's pairs travel (little-endian, no header: the all-gather carries the byte size).
//  pairs32:       uint32 index + float32 value per pair, 8 bytes/pair.
//  delta-varint:  per pair, the gap to the previous index minus one (the first pair: its
//                 index) as an unsigned LEB128 varint, then the float32 value. At rho = 0.99
//                 the gaps are ~100, so most take one byte: ~5 bytes/pair.
// In both, indices increase strictly (TopKCompressor and the device compaction emit them so);
// decoding rejects a buffer where they do not, since the device's scatter-add (no atomics)
// relies on distinct indices.
enum class PairEncodingKind { Pairs32, DeltaVarint };

class PairEncoding {
 public:
  virtual ~PairEncoding() = default;
  virtual const char* name() const = 0;
  virtual void encode(const std::vector<SparsePair>& S, std::vector<uint8_t>& out) const = 0;
  // G[index] += value for each pair, in wire order. Throws std::runtime_error on a
  // malformed buffer, an index >= P, or indices that do not increase strictly.
  virtual void decode_add(const std::vector<uint8_t>& bytes, float* G, size_t P) const = 0;
  virtual void decode(const std::vector<uint8_t>& bytes, size_t P,
                      std::vector<SparsePair>& out) const = 0;
};

std::unique_ptr<PairEncoding> make_pair_encoding(PairEncodingKind kind);
PairEncodingKind pair_encoding_from_name(const std::string& name);  // throws invalid_argument
const char* pair_encoding_name(PairEncodingKind kind);

}  // namespace sl
