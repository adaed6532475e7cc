#!/usr/bin/env bash
# Pairs longer than data.max_length are left out of training: that must be reported, on
# stderr when the data is loaded (count, limit, first line) and in summary.json
# ("dropped_pairs", "train_pairs"), never silently.
# Usage: dropped_pairs.sh RUN_EXPERIMENT CONFIG WORKDIR
set -euo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
"$bin" --config "$config" --no-progress --set train.max_steps=4 --set valid.every=0 --set valid.test_at_end=false \
  --set data.max_length=12 --set data.batch_tokens=512 --output-dir "$work/run" 2> "$work/err" ||
  { cat "$work/err"; fail "run failed"; }
cat "$work/err" >&2
line=$(grep -E "[0-9]+ of [0-9]+ training pairs have a side longer than data.max_length = 12 tokens" "$work/err") ||
  fail "no stderr line reporting the dropped pairs"
n=$(echo "$line" | sed -E 's/.*: ([0-9]+) of ([0-9]+) training pairs.*/\1/')
total=$(echo "$line" | sed -E 's/.*: ([0-9]+) of ([0-9]+) training pairs.*/\2/')
echo "$line" | grep -Eq "the first is line [0-9]+ of .*train\.de/\.en" || fail "the line does not name the first dropped pair"
[ "$n" -gt 0 ] || fail "no pair dropped with max_length 12: the test needs a smaller limit"
[ "$(json_field "$work/run/summary.json" dropped_pairs)" = "$n" ] || fail "summary.json dropped_pairs is not $n"
[ "$(json_field "$work/run/summary.json" train_pairs)" = "$total" ] || fail "summary.json train_pairs is not $total"
echo "ok: $n of $total pairs dropped, reported on stderr and in summary.json"
