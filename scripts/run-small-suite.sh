#!/usr/bin/env bash
# The paper's comparison on this machine (issue 5): configs/small/suite/{transformer,rnn}.json
# run side by side (one process each, 1 BLAS thread each: the machine has 2 cores), then
# figures, the summary table and the claims' numbers.
# About an hour on 2 idle cores. Interrupted? Run it again: finished experiments are skipped,
# interrupted ones resume from their last checkpoint.
# Usage: scripts/run-small-suite.sh [RUN_EXPERIMENT_BINARY]
# Results: results/small/{transformer,rnn}/<experiment>/, results/small/figures/,
#          results/small/claims.md
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/apps/run-experiment/run-experiment}
[ -x "$bin" ] || { echo "run-small-suite: $bin: not built (run scripts/build.sh)" >&2; exit 2; }
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi  # Debian's matplotlib lives there
start=$SECONDS
# The first suite trains the shared SentencePiece model; the second starts once it exists.
"$bin" --suite configs/small/suite/transformer.json --output-root results/small --no-progress &
first=$!
while [ ! -f cache/spm/small-suite/spm.2000.model ] && kill -0 $first 2>/dev/null; do sleep 2; done
"$bin" --suite configs/small/suite/rnn.json --output-root results/small --no-progress &
second=$!
status=0
wait $first || status=$?
wait $second || status=$?
[ $status = 0 ] || { echo "run-small-suite: a suite failed (exit $status)" >&2; exit $status; }
"$PY" scripts/plot.py results/small --network 1gbe
"$PY" scripts/claims.py results/small --out results/small/claims.md > /dev/null
echo "run-small-suite: done in $((SECONDS - start)) s; see results/small/figures/summary.md and results/small/claims.md"
