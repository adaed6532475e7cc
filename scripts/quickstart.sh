#!/usr/bin/env bash
# The README's first command: installs the Debian/Ubuntu packages, builds (Release), and runs
# the main job on the embedded corpus (scripts/run-demo.sh, whose header says what it runs:
# configs/demo/suite.json's experiments side by side, then the plots).
# Results: results/demo/<experiment>/ and results/demo/figures/ (PNGs + summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/run-demo.sh
