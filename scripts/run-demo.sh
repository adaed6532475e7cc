#!/usr/bin/env bash
# The main job (run by scripts/quickstart.sh after the build): dense, sparse (gradient
# dropping), sparse+partial (this paper, K = 500) and PowerSGD (rank 4: the descendant best at
# equal bytes in reproduction v3) on 4 simulated nodes, 1500 updates each (lr annealed
# linearly to 0), each at the learning rate reproduction v3's pre-registered rule chose for it
# at this size and length (dense 0.008, sparse 0.002, sparse+partial 0.004, PowerSGD 0.008;
# results/repro-v3/STATUS.md phase 1: a shared lr flatters the compressed methods), one
# process per run sharing the cores (1 BLAS thread each), then plots against steps and
# against the virtual clock of an assumed GPU-class node over 1 Gbit/s Ethernet
# (configs/hardware/gpu-class-assumed.json, scripts/vclock.py). The runs are
# configs/demo/suite.json's experiments, in its order.
# Finished runs are skipped and interrupted ones resume (run-experiment --suite).
# Usage: scripts/run-demo.sh [RUN_EXPERIMENT_BINARY]
# Results: results/demo/<experiment>/, results/demo/<experiment>.console.log,
#          results/demo/figures/ (PNGs + summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/apps/run-experiment/run-experiment}
[ -x "$bin" ] || { echo "run-demo: $bin: not built (run scripts/build.sh)" >&2; exit 2; }
start=$SECONDS
mapfile -t runs < <(python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["experiments"]: print(e["name"])' configs/demo/suite.json)
[ ${#runs[@]} -gt 0 ] || { echo "run-demo: configs/demo/suite.json: no experiments" >&2; exit 2; }
mkdir -p results/demo
pids=()
for e in "${runs[@]}"; do
  "$bin" --suite configs/demo/suite.json --output-root results --only "$e" --no-progress \
    >> "results/demo/$e.console.log" 2>&1 &
  pids+=($!)
  # The first run trains the shared SentencePiece model; the others wait for it.
  while [ ! -f cache/spm/demo/spm.2000.model ] && kill -0 "${pids[0]}" 2>/dev/null; do sleep 1; done
done
# One status line every 20 s: each run's last step and its latest dev BLEU.
while true; do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  line=""
  for e in "${runs[@]}"; do
    f=results/demo/$e.console.log
    # (|| true: no match yet is not an error under set -e / pipefail)
    step=$( (grep -o 'step [0-9]*/[0-9]*' "$f" 2>/dev/null || true) | tail -n 1 | cut -d' ' -f2)
    bleu=$( (grep -o 'dev ce [0-9.]* BLEU [0-9.]*' "$f" 2>/dev/null || true) | tail -n 1 |
            awk '{printf "%.1f", $5}')
    line="$line  $e ${step:-starting}${bleu:+ (dev BLEU $bleu)}"
  done
  echo "run-demo $((SECONDS - start)) s:$line"
  [ $alive = 1 ] || break
  for _ in $(seq 20); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 1 ] && sleep 1
  done
done
status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    status=1
    echo "run-demo: ${runs[$i]} failed; the end of results/demo/${runs[$i]}.console.log:" >&2
    tail -n 20 "results/demo/${runs[$i]}.console.log" >&2
  fi
done
[ $status = 0 ] || exit 1
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's matplotlib lives there
"$PY" scripts/plot.py results/demo --network 1gbe --profile configs/hardware/gpu-class-assumed.json
echo "run-demo: trained and plotted in $((SECONDS - start)) s."
echo "Done: see results/demo/figures/summary.md and the PNGs beside it."
