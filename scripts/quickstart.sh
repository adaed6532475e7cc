#!/usr/bin/env bash
# The README's first command: installs the Debian/Ubuntu packages, builds (Release), and runs
# the main job on the embedded corpus: dense, sparse (gradient dropping) and sparse+partial
# (this paper, K = 500) on 4 simulated nodes, 1500 updates each (lr annealed linearly to 0),
# then plots them against steps and against the virtual clock of an assumed GPU-class node
# over 1 Gbit/s Ethernet (configs/hardware/gpu-class-assumed.json, scripts/vclock.py).
# The three runs share the 2 cores as three processes (1 BLAS thread each).
# Results: results/demo/<experiment>/ and results/demo/figures/ (PNGs + summary.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
start=$SECONDS
bin=build/apps/run-experiment/run-experiment
runs=(dense-4 sparse-4 sparse-partial-4)
mkdir -p results/demo
pids=()
for e in "${runs[@]}"; do
  "$bin" --suite configs/demo/suite.json --output-root results --only "$e" --no-progress \
    > "results/demo/$e.console.log" 2>&1 &
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
    step=$(grep -o 'step [0-9]*/[0-9]*' "$f" 2>/dev/null | tail -n 1 | cut -d' ' -f2)
    bleu=$(grep -o 'dev ce [0-9.]* BLEU [0-9.]*' "$f" 2>/dev/null | tail -n 1 | awk '{printf "%.1f", $5}')
    line="$line  $e ${step:-starting}${bleu:+ (dev BLEU $bleu)}"
  done
  echo "quickstart $((SECONDS - start)) s:$line"
  [ $alive = 1 ] || break
  sleep 20
done
status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    status=1
    echo "quickstart: ${runs[$i]} failed; the end of results/demo/${runs[$i]}.console.log:" >&2
    tail -n 20 "results/demo/${runs[$i]}.console.log" >&2
  fi
done
[ $status = 0 ] || exit 1
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's matplotlib lives there
"$PY" scripts/plot.py results/demo --network 1gbe --profile configs/hardware/gpu-class-assumed.json
echo "quickstart: trained and plotted in $((SECONDS - start)) s."
echo "Done: see results/demo/figures/summary.md and the PNGs beside it."
