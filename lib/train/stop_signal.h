#pragma once
#include <atomic>

namespace sl {

// SIGTERM and SIGUSR1 (what Slurm sends before a time limit or pre-emption) set a flag; the
// trainer's nodes agree on it at the next step, write a checkpoint and stop cleanly.
// A second SIGTERM/SIGINT exits at once.
const std::atomic<bool>& install_stop_signal_handlers();
int stop_signal_number();  // the signal that set the flag, 0 if none

}  // namespace sl
