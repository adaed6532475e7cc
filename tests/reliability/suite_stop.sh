#!/usr/bin/env bash
# SIGTERM to a running suite stops the whole suite, not only the experiment it reached:
# expects exit code 0, the first experiment "incomplete" with a checkpoint, no directory for the
# experiments after it, a message saying how to resume, and that the same command then runs
# the suite to the end (every experiment "complete").
# Usage: suite_stop.sh RUN_EXPERIMENT TINY_CONFIG_DIR WORKDIR
set -euo pipefail
bin=$1 cfg=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
cat > "$work/suite.json" <<JSON
{"name": "s", "experiments": [
  {"name": "first", "config": "$cfg/dense.json"},
  {"name": "second", "config": "$cfg/sparse.json"},
  {"name": "third", "config": "$cfg/sparse-partial.json"}]}
JSON
common=(--suite "$work/suite.json" --output-root "$work/out" --no-progress --set train.max_steps=60
        --set train.checkpoint_every=7 --set valid.every=30 --set train.log_every=1)
"$bin" "${common[@]}" 2> "$work/stopped.err" &
pid=$!
wait_for_checkpoint "$work/out/s/first" $pid || fail "no checkpoint before the first experiment ended"
kill -s TERM $pid
rc=0; wait $pid || rc=$?
cat "$work/stopped.err" >&2
[ $rc -eq 0 ] || fail "exit code $rc after SIGTERM, expected 0"
[ "$(json_field "$work/out/s/first/summary.json" status)" = incomplete ] || fail "first experiment is not incomplete"
for x in second third; do
  [ ! -e "$work/out/s/$x" ] || fail "the suite went on to experiment \"$x\" after SIGTERM"
done
grep -q "run the same command again to resume" "$work/stopped.err" || fail "no message on how to resume"
"$bin" "${common[@]}"
for x in first second third; do
  [ "$(json_field "$work/out/s/$x/summary.json" status)" = complete ] || fail "experiment $x did not complete on resume"
done
echo "PASS"
