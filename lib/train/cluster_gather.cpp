#include "train/cluster_gather.h"

#include <cstring>

namespace sl {

std::vector<std::vector<double>> allgather_doubles(Communicator& comm,
                                                   const std::vector<double>& mine) {
  std::vector<uint8_t> buf(mine.size() * sizeof(double));
  if (!buf.empty()) std::memcpy(buf.data(), mine.data(), buf.size());
  std::vector<std::vector<uint8_t>> all;
  comm.allgather_bytes(buf, all);
  std::vector<std::vector<double>> out(all.size());
  for (size_t m = 0; m < all.size(); ++m) {
    out[m].resize(all[m].size() / sizeof(double));
    if (!out[m].empty()) std::memcpy(out[m].data(), all[m].data(), all[m].size());
  }
  return out;
}

}  // namespace sl
