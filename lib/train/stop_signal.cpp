#include "train/stop_signal.h"

#include <unistd.h>

#include <csignal>

namespace sl {

namespace {
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  if (g_stop.load() && sig != SIGUSR1) _exit(128 + sig);
  g_signal.store(sig);
  g_stop.store(true);
}
}  // namespace

const std::atomic<bool>& install_stop_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  return g_stop;
}

int stop_signal_number() { return g_signal.load(); }

}  // namespace sl
