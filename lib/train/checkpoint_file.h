#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace sl {

// The on-disk unit of a checkpoint: a JSON header plus named float arrays.
// Layout: "SLCKPT1\n" | u64 header bytes | header JSON | raw arrays | u64 FNV-1a of all the
// preceding bytes | "SLEND\n". A file cut short or altered anywhere fails the checksum or
// the end marker, so a half-written checkpoint is never loaded.
struct CheckpointFile {
  nlohmann::json meta = nlohmann::json::object();
  std::vector<std::pair<std::string, std::vector<float>>> arrays;

  const std::vector<float>& array(const std::string& name, const std::string& path) const;
};

// Atomic (temp file + fsync + rename): the previous file at `path` survives any failure.
void write_checkpoint_file(const std::string& path, const CheckpointFile& ckpt);
// Throws InputError(path, ...) naming what is wrong: missing, truncated, bad checksum...
CheckpointFile read_checkpoint_file(const std::string& path);

}  // namespace sl
