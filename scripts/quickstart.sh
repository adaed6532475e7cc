#!/usr/bin/env bash
# The README's first command: installs the Debian/Ubuntu packages, builds (Release), and runs
# the main job on the embedded corpus: a short comparison of dense, sparse (gradient
# dropping) and sparse+partial (this paper) on 4 simulated nodes, then plots it.
# Results: results/demo/<experiment>/ and results/demo/figures/ (PNGs + summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
build/apps/run-experiment/run-experiment --suite configs/demo/suite.json --output-root results
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's matplotlib lives there
"$PY" scripts/plot.py results/demo --network 1gbe
echo "Done: see results/demo/figures/summary.md and the PNGs beside it."
