#include "distributed/pair_encoding.h"

#include <cstring>
#include <stdexcept>

namespace sl {

namespace {

[[noreturn]] void malformed(const char* encoding, const std::string& what) {
  throw std::runtime_error(std::string(encoding) + " decode: " + what);
}

// decode_add and decode for an encoding that walks its buffer with
// for_each(bytes, P, f(const SparsePair&)), without a virtual call per pair.
template <class Encoding>
class PairWalkingEncoding : public PairEncoding {
 public:
  void decode_add(const std::vector<uint8_t>& bytes, float* G, size_t P) const override {
    self().for_each(bytes, P, [G](const SparsePair& p) { G[p.index] += p.value; });
  }
  void decode(const std::vector<uint8_t>& bytes, size_t P,
              std::vector<SparsePair>& out) const override {
    out.clear();
    self().for_each(bytes, P, [&out](const SparsePair& p) { out.push_back(p); });
  }

 private:
  const Encoding& self() const { return static_cast<const Encoding&>(*this); }
};

class Pairs32Encoding : public PairWalkingEncoding<Pairs32Encoding> {
 public:
  const char* name() const override { return "pairs32"; }

  void encode(const std::vector<SparsePair>& S, std::vector<uint8_t>& out) const override {
    out.resize(S.size() * sizeof(SparsePair));
    if (!S.empty()) std::memcpy(out.data(), S.data(), out.size());
  }

  template <class F>
  void for_each(const std::vector<uint8_t>& bytes, size_t P, F&& f) const {
    if (bytes.size() % sizeof(SparsePair) != 0)
      malformed(name(), "size " + std::to_string(bytes.size()) + " is not a multiple of 8");
    const size_t k = bytes.size() / sizeof(SparsePair);
    int64_t prev = -1;
    for (size_t j = 0; j < k; ++j) {
      SparsePair p;
      std::memcpy(&p, bytes.data() + j * sizeof p, sizeof p);
      if (p.index >= P) malformed(name(), "index " + std::to_string(p.index) + " >= P");
      // Distinct indices are what the device's scatter-add (one thread per pair, no atomics)
      // needs; every sender emits them in increasing order, so that is what is checked.
      if (static_cast<int64_t>(p.index) <= prev)
        malformed(name(), "pair " + std::to_string(j) + " has index " + std::to_string(p.index) +
                              ", not above the previous " + std::to_string(prev));
      prev = p.index;
      f(p);
    }
  }
};

class DeltaVarintEncoding : public PairWalkingEncoding<DeltaVarintEncoding> {
 public:
  const char* name() const override { return "delta-varint"; }

  void encode(const std::vector<SparsePair>& S, std::vector<uint8_t>& out) const override {
    out.resize(S.size() * 9);  // worst case: 5 varint bytes + 4 value bytes
    uint8_t* w = out.data();
    int64_t prev = -1;
    for (const SparsePair& p : S) {
      if (static_cast<int64_t>(p.index) <= prev)
        throw std::logic_error("delta-varint encode: indices must increase strictly");
      uint32_t gap = static_cast<uint32_t>(p.index - prev - 1);
      while (gap >= 0x80) {
        *w++ = static_cast<uint8_t>(gap | 0x80);
        gap >>= 7;
      }
      *w++ = static_cast<uint8_t>(gap);
      std::memcpy(w, &p.value, sizeof p.value);
      w += sizeof p.value;
      prev = p.index;
    }
    out.resize(w - out.data());
  }

  template <class F>
  void for_each(const std::vector<uint8_t>& bytes, size_t P, F&& f) const {
    const uint8_t* r = bytes.data();
    const uint8_t* end = r + bytes.size();
    int64_t prev = -1;
    while (r < end) {
      uint64_t gap = 0;
      int shift = 0;
      for (;;) {
        if (r == end || shift > 28) malformed(name(), "truncated or overlong index varint");
        const uint8_t byte = *r++;
        gap |= static_cast<uint64_t>(byte & 0x7f) << shift;
        shift += 7;
        if (!(byte & 0x80)) break;
      }
      if (end - r < 4) malformed(name(), "truncated value");
      const int64_t index = prev + 1 + static_cast<int64_t>(gap);
      if (static_cast<uint64_t>(index) >= P)
        malformed(name(), "index " + std::to_string(index) + " >= P");
      SparsePair p{static_cast<uint32_t>(index), 0.0f};
      std::memcpy(&p.value, r, sizeof p.value);
      r += sizeof p.value;
      prev = index;
      f(p);
    }
  }
};

}  // namespace

std::unique_ptr<PairEncoding> make_pair_encoding(PairEncodingKind kind) {
  if (kind == PairEncodingKind::DeltaVarint) return std::make_unique<DeltaVarintEncoding>();
  return std::make_unique<Pairs32Encoding>();
}

PairEncodingKind pair_encoding_from_name(const std::string& name) {
  if (name == "pairs32") return PairEncodingKind::Pairs32;
  if (name == "delta-varint") return PairEncodingKind::DeltaVarint;
  throw std::invalid_argument("unknown pair encoding \"" + name + "\"");
}

const char* pair_encoding_name(PairEncodingKind kind) {
  return kind == PairEncodingKind::DeltaVarint ? "delta-varint" : "pairs32";
}

}  // namespace sl
