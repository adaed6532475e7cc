#!/usr/bin/env bash
# One rank of `mpiexec -n N` raises at step STEP (fault injection, SL_FAULT_THROW_RANK): every
# rank must exit non-zero within 30 s with a message naming the failing rank; no hang.
# With MPIEXEC "sim" the same fault hits one node of the simulated cluster.
# Usage: failing_rank.sh RUN_EXPERIMENT CONFIG WORKDIR MPIEXEC|sim [N RANK STEP]
set -uo pipefail
bin=$1 config=$2 work=$3 mpiexec=$4 n=${5:-4} bad=${6:-2} step=${7:-8}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
trap 'clear_dead_run "$work/run"' EXIT  # the run this test kills leaves its lock (and temp files)
launch=("$mpiexec" -n "$n") backend=mpi
[ "$mpiexec" = sim ] && launch=() backend=sim
start=$(date +%s.%N)
SL_FAULT_THROW_RANK=$bad SL_FAULT_THROW_STEP=$step timeout -s KILL 60 \
  "${launch[@]}" "$bin" --config "$config" --no-progress --set train.max_steps=30 \
  --set train.checkpoint_every=5 --set cluster.backend=$backend --set cluster.nodes="$n" \
  --output-dir "$work/run" 2> "$work/err" &
pid=$!
wait $pid; rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
cat "$work/err" >&2
echo "exit code $rc after ${elapsed}s"
[ $rc -ne 0 ] || fail "exit code 0 although rank $bad failed"
[ $rc -ne 137 ] || fail "the job hung and was killed after 60 s"
awk -v e="$elapsed" 'BEGIN { exit !(e < 30) }' || fail "took ${elapsed}s (limit 30 s)"
grep -Eq "(rank $bad: fatal|fatal: node $bad): .*SL_FAULT_THROW_RANK=$bad.* at step $step" "$work/err" ||
  fail "no message naming rank $bad and the cause"
left=$(rank_pids $pid)
[ -z "$left" ] || fail "ranks still running: $left"
if [ -f "$work/run/summary.json" ]; then
  echo "summary.json: $(cat "$work/run/summary.json")"
  [ "$(json_field "$work/run/summary.json" status)" = incomplete ] || fail "summary.json does not say incomplete"
  [[ "$(json_field "$work/run/summary.json" last_checkpoint)" == *step-* ]] || fail "summary.json names no last checkpoint"
else
  echo "summary.json: not written (the job was aborted); checkpoints/latest = $(cat "$work/run/checkpoints/latest" 2>/dev/null)"
fi
