#!/usr/bin/env bash
# The reproduction-v2 suite (configs/repro/README.md): both models side by side (one process
# each, 1 BLAS thread each), then claims (--v2), speed-up maps and figures.
# About 3.6 hours on an idle 2-core machine (estimate from measured step times). Interrupted?
# Run it again: finished experiments are skipped, interrupted ones resume from their last
# checkpoint (every 500 steps).
# Usage: scripts/run-repro-suite.sh [RUN_EXPERIMENT_BINARY] [transformer|rnn|both]
# Results: results/repro/{transformer,rnn}/<experiment>/, results/repro/figures/,
#          results/repro/claims.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/apps/run-experiment/run-experiment}
which=${2:-both}
case $which in transformer|rnn|both) ;; *)
  echo "run-repro-suite: $which: expected transformer, rnn or both" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "run-repro-suite: $bin: not built (run scripts/build.sh)" >&2; exit 2; }
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's matplotlib lives there
start=$SECONDS
pids=()
for m in transformer rnn; do
  [ "$which" = both ] || [ "$which" = "$m" ] || continue
  "$bin" --suite "configs/repro/$m.json" --output-root results/repro --no-progress &
  pids+=($!)
  # The first suite trains the shared SentencePiece model if it is missing.
  while [ ! -f cache/spm/small-suite/spm.2000.model ] && kill -0 "${pids[0]}" 2>/dev/null; do sleep 2; done
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=$?; done
[ $status = 0 ] || { echo "run-repro-suite: a suite failed (exit $status)" >&2; exit $status; }
"$PY" scripts/claims.py results/repro --v2 --out results/repro/claims.md > /dev/null
"$PY" scripts/speedup_map.py results/repro --out results/repro/figures > /dev/null
"$PY" scripts/plot.py results/repro --network 1gbe --bands --profile configs/hardware/gpu-class-assumed.json --profile configs/hardware/cpu-here-1thread.json
echo "run-repro-suite: done in $((SECONDS - start)) s; see results/repro/claims.md and results/repro/figures/"
