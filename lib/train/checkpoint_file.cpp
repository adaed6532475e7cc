#include "train/checkpoint_file.h"

#include <cstdint>
#include <cstring>

#include "common/atomic_file.h"
#include "common/input_error.h"

namespace sl {

namespace {
const char kMagic[] = "SLCKPT1\n";
const char kEnd[] = "SLEND\n";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
constexpr size_t kEndLen = sizeof(kEnd) - 1;

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

void put_u64(std::string& s, uint64_t x) { s.append(reinterpret_cast<const char*>(&x), 8); }
uint64_t get_u64(const std::string& s, size_t pos) {
  uint64_t x;
  std::memcpy(&x, s.data() + pos, 8);
  return x;
}
}  // namespace

const std::vector<float>& CheckpointFile::array(const std::string& name,
                                                const std::string& path) const {
  for (auto& a : arrays)
    if (a.first == name) return a.second;
  throw InputError(path, "checkpoint has no array \"" + name + "\"");
}

void write_checkpoint_file(const std::string& path, const CheckpointFile& ckpt) {
  nlohmann::json header = {{"meta", ckpt.meta}, {"arrays", nlohmann::json::array()}};
  for (auto& a : ckpt.arrays)
    header["arrays"].push_back({{"name", a.first}, {"count", a.second.size()}});
  std::string h = header.dump();
  std::string out(kMagic, kMagicLen);
  put_u64(out, h.size());
  out += h;
  for (auto& a : ckpt.arrays)
    out.append(reinterpret_cast<const char*>(a.second.data()), a.second.size() * sizeof(float));
  put_u64(out, fnv1a(out.data(), out.size()));
  out.append(kEnd, kEndLen);
  write_file_atomic(path, out);
}

CheckpointFile read_checkpoint_file(const std::string& path) {
  std::string s = read_file(path);
  if (s.size() < kMagicLen + 8 + 8 + kEndLen || s.compare(0, kMagicLen, kMagic) != 0)
    throw InputError(path, "not a sparselocal checkpoint (bad magic or too short: " +
                               std::to_string(s.size()) + " bytes)");
  if (s.compare(s.size() - kEndLen, kEndLen, kEnd) != 0)
    throw InputError(path, "checkpoint is truncated (no end marker)");
  const size_t body = s.size() - kEndLen - 8;
  if (get_u64(s, body) != fnv1a(s.data(), body))
    throw InputError(path, "checkpoint checksum mismatch (corrupt or partially written)");
  const uint64_t hlen = get_u64(s, kMagicLen);
  if (kMagicLen + 8 + hlen > body) throw InputError(path, "checkpoint header length out of range");
  CheckpointFile ckpt;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(s.substr(kMagicLen + 8, hlen));
  } catch (const std::exception& e) {
    throw InputError(path, std::string("checkpoint header is not JSON: ") + e.what());
  }
  ckpt.meta = header.at("meta");
  size_t pos = kMagicLen + 8 + hlen;
  for (auto& a : header.at("arrays")) {
    const size_t count = a.at("count").get<size_t>();
    if (pos + count * sizeof(float) > body) throw InputError(path, "checkpoint array out of range");
    std::vector<float> v(count);
    if (count) std::memcpy(v.data(), s.data() + pos, count * sizeof(float));
    pos += count * sizeof(float);
    ckpt.arrays.emplace_back(a.at("name").get<std::string>(), std::move(v));
  }
  if (pos != body) throw InputError(path, "checkpoint has trailing bytes before the checksum");
  return ckpt;
}

}  // namespace sl
