#!/usr/bin/env bash
# A rank that crashes (SL_FAULT_CRASH=segv|stack|bus|abort: a real invalid write, a real
# stack overflow, SIGBUS, abort()) must never hang the job: every process must be gone
# within 30 s, the exit code non-zero, and stderr must hold our one line naming the signal
# (and, under MPI, the rank). Runs on the simulated cluster ("sim") or under MPIEXEC -n N.
# Usage: crash.sh RUN_EXPERIMENT CONFIG WORKDIR KIND MPIEXEC|sim [N RANK]
set -uo pipefail
bin=$1 config=$2 work=$3 kind=$4 mpiexec=$5 n=${6:-4} bad=${7:-1}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
trap 'clear_dead_run "$work/run"' EXIT  # the run this test kills leaves its lock (and temp files)
launch=("$mpiexec" -n "$n") backend=mpi
[ "$mpiexec" = sim ] && launch=() backend=sim n=2 bad=0
case $kind in
  segv|stack) sig=SIGSEGV ;;
  bus) sig=SIGBUS ;;
  abort) sig=SIGABRT ;;
  *) fail "unknown kind $kind" ;;
esac
start=$(date +%s.%N)
SL_FAULT_CRASH=$kind SL_FAULT_CRASH_RANK=$bad timeout -s KILL 60 \
  "${launch[@]}" "$bin" --config "$config" --no-progress --set train.max_steps=30 \
  --set cluster.backend=$backend --set cluster.nodes="$n" --output-dir "$work/run" 2> "$work/err" &
pid=$!
wait $pid; rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
cat "$work/err" >&2
echo "exit code $rc after ${elapsed}s"
[ $rc -ne 0 ] || fail "exit code 0 although a rank crashed"
[ $rc -ne 137 ] || fail "the job hung and was killed after 60 s"
awk -v e="$elapsed" 'BEGIN { exit !(e < 30) }' || fail "took ${elapsed}s (limit 30 s)"
if [ "$backend" = mpi ]; then
  grep -Eq "run-experiment: fatal: rank $bad of $n \(pid [0-9]+ on [^)]*\): crashed with $sig" "$work/err" ||
    fail "no line naming rank $bad and $sig"
else
  grep -Eq "run-experiment: fatal: pid [0-9]+: crashed with $sig" "$work/err" || fail "no line naming $sig"
fi
left=$(rank_pids $pid)
[ -z "$left" ] || fail "ranks still running: $left"
echo "ok: $kind -> $sig reported in one line, all processes gone in ${elapsed}s"
