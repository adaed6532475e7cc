#include "distributed/communicator.h"

#include <cstring>

namespace sl {

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
