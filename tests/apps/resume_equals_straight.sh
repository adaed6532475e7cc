#!/usr/bin/env bash
# A run stopped after K steps and resumed to the end must equal an uninterrupted run:
# same final parameters of every node (byte-identical checkpoints) and the same log lines.
# Usage: resume_equals_straight.sh RUN_EXPERIMENT CONFIG STOP_AT WORKDIR
set -euo pipefail
bin=$1 config=$2 k=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$bin" --config "$config" --output-dir "$work/straight" --no-progress --set valid.every="$k"
"$bin" --config "$config" --output-dir "$work/resumed" --no-progress --set valid.every="$k" \
  --set train.max_steps="$k" --set valid.test_at_end=false
"$bin" --config "$config" --output-dir "$work/resumed" --no-progress --set valid.every="$k" --resume
python3 "$here/compare_runs.py" "$work/straight" "$work/resumed"
