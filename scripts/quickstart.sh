#!/usr/bin/env bash
# The README's first command: installs the Debian/Ubuntu packages, builds (Release), and runs
# the main job on the embedded corpus: dense, sparse (gradient dropping), sparse+partial
# (this paper, K = 500) and PowerSGD (rank 4) on 4 simulated nodes, 1500 updates each (lr
# annealed linearly to 0), then plots them against steps and against the virtual clock of an
# assumed GPU-class node over 1 Gbit/s Ethernet (configs/hardware/gpu-class-assumed.json,
# scripts/vclock.py). The runs (configs/demo/suite.json) share the cores as one process each
# (1 BLAS thread each).
# Results: results/demo/<experiment>/ and results/demo/figures/ (PNGs + summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/run-demo.sh
