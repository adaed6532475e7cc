#!/usr/bin/env bash
# Measures this machine's hardware profile for the virtual clock (scripts/vclock.py):
# trains each small-suite model on 1 simulated node with 1 BLAS thread for STEPS steps (no
# validation), then prints the median measured compute seconds per step (thread CPU time, the
# log's compute_s) and the sustained FLOP/s it implies with vclock.py's FLOP counter.
# Usage: scripts/measure-profile.sh [--copies N] [RUN_EXPERIMENT_BINARY] [STEPS] [CONFIG...]
#   default configs: configs/small/suite/transformer-model.json configs/small/suite/rnn-model.json
#   --copies N: run N identical 1-node trainings at once (default 1), as N MPI ranks on this
#   machine share it (caches, memory bandwidth, sibling hyperthreads): the profile of a node
#   whose neighbours also compute (results/clock/validation.md uses N = 2 for 2-rank runs).
# Copy the numbers into configs/hardware/<name>.json (seconds_per_step + sustained_flops).
set -euo pipefail
cd "$(dirname "$0")/.."
copies=1
if [[ ${1:-} == --copies ]]; then
  copies=${2:-}
  [[ $copies =~ ^[1-9][0-9]*$ ]] || { echo "measure-profile: --copies '$copies': want a positive integer" >&2; exit 2; }
  shift 2
fi
bin=${1:-build/apps/run-experiment/run-experiment}
steps=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(configs/small/suite/transformer-model.json configs/small/suite/rnn-model.json)
[ -x "$bin" ] || { echo "measure-profile: $bin: not built" >&2; exit 2; }
[[ $steps =~ ^[1-9][0-9]*$ ]] || { echo "measure-profile: STEPS '$steps': want a positive integer" >&2; exit 2; }
for cfg in "${configs[@]}"; do
  [ -f "$cfg" ] || { echo "measure-profile: $cfg: no such config" >&2; exit 2; }
done
out=$(mktemp -d /tmp/sl-profile.XXXXXX)
echo "# $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(date -u +%FT%TZ), $copies cop$( ((copies == 1)) && echo y || echo ies) at once"
pids=()
# Background jobs of a script ignore SIGINT: stop the copies on every way out.
trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$out"' EXIT
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .json)
  pids=()
  for ((i = 0; i < copies; i++)); do
    "$bin" --config "$cfg" --output-dir "$out/$name-$i" --no-progress --set cluster.nodes=1 \
      --set cluster.blas_threads=1 --set train.max_steps="$steps" --set valid.every=0 \
      --set valid.test_at_end=false --set train.checkpoint_every=0 --set train.log_every=5 \
      > "$out/$name-$i.stdout" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < copies; i++)); do
    rc=0; wait "${pids[$i]}" || rc=$?
    # a run's own exit code: 2 for bad input (a config it refuses), 1 otherwise
    ((rc == 0)) || { cat "$out/$name-$i.stdout" >&2; exit "$rc"; }
  done
  pids=()  # all reaped: nothing left for the traps to stop
  for ((i = 0; i < copies; i++)); do python3 scripts/vclock.py measure "$out/$name-$i"; done
done
