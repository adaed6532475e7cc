#include "distributed/communicator.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace sl {

std::string describe_collective_timeout(const char* collective, uint64_t index, double seconds,
                                        const std::vector<int>& missing, const char* rank_word) {
  char waited[32];
  std::snprintf(waited, sizeof waited, "%g", seconds);
  std::string s = std::string("collective timeout: ") + collective + " (collective " +
                  std::to_string(index) + " since the timeout was set) waited " + waited +
                  " s (cluster.collective_timeout_s) ";
  if (missing.empty())
    return s + "although every " + rank_word +
           " entered it: one of them stopped answering inside it";
  std::string list;
  for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return s + "for " + rank_word + "(s) " + list +
         ", which never entered it (stopped, hung, or far slower than the others)";
}

CommCounters CommCounters::operator-(const CommCounters& o) const {
  CommCounters d;
  d.bytes_sent = bytes_sent - o.bytes_sent;
  d.bytes_received = bytes_received - o.bytes_received;
  d.control_bytes_sent = control_bytes_sent - o.control_bytes_sent;
  d.control_bytes_received = control_bytes_received - o.control_bytes_received;
  d.collectives = collectives - o.collectives;
  return d;
}

double Communicator::allreduce_sum(double x) {
  std::vector<double> all(size());
  allgather_fixed(&x, sizeof x, all.data());
  double s = all[0];
  for (size_t m = 1; m < all.size(); ++m) s += all[m];
  return s;
}

int64_t Communicator::allreduce_sum(int64_t x) {
  std::vector<int64_t> all(size());
  allgather_fixed(&x, sizeof x, all.data());
  int64_t s = 0;
  for (int64_t v : all) s += v;
  return s;
}

}  // namespace sl
