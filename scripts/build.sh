#!/usr/bin/env bash
# Configures and builds into build/ (Release). Extra arguments go to the configure step,
# e.g. scripts/build.sh -DSL_CUDA=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
