#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages sparselocal builds and runs with. Needs root (or sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
PKGS=(
  build-essential cmake pkg-config git
  libopenblas-dev                     # CPU GEMM
  mpich libmpich-dev                  # multi-process / multi-node runs
  libcli11-dev nlohmann-json3-dev     # CLI flags, JSON configs and logs
  libsentencepiece-dev sentencepiece  # sub-words
  libgtest-dev zlib1g-dev             # tests, gzip corpora
  python3 python3-matplotlib python3-numpy  # plots from JSON logs
  patchelf                            # scripts/make-gpu-bundle.sh ($ORIGIN run paths)
)
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${PKGS[@]}"
