#!/usr/bin/env bash
# DiLoCo with outer lr 1 and no momentum must be fedavg with K = H, bit for bit
# (BEYOND.md; lib/distributed/outer_optimizer.h): trains configs/tiny/fedavg.json and
# configs/tiny/diloco.json (both K = 5) so, and compares parameters, logs and test BLEU.
# Usage: diloco_equals_fedavg.sh RUN_EXPERIMENT CONFIG_DIR WORKDIR
set -euo pipefail
bin=$1 cfg=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
common=(--no-progress --set train.log_every=1 --set valid.every=10)
"$bin" --config "$cfg/fedavg.json" "${common[@]}" --output-dir "$work/fedavg"
"$bin" --config "$cfg/diloco.json" "${common[@]}" --set distributed.diloco.outer_lr=1 \
  --set distributed.diloco.outer_momentum=0 --output-dir "$work/diloco"
python3 "$here/same_training.py" "$work/fedavg" "$work/diloco"
