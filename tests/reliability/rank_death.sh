#!/usr/bin/env bash
# SIGKILL to one rank (RANK) of `mpiexec -n N` while it trains: the others must exit non-zero
# within 30 s, and our own line must name the rank that died, not only the launcher's guess
# (MPICH's hydra names whichever pid it reaps first).
# Usage: rank_death.sh RUN_EXPERIMENT CONFIG WORKDIR MPIEXEC [N RANK]
set -uo pipefail
bin=$1 config=$2 work=$3 mpiexec=$4 n=${5:-4} bad=${6:-2}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
trap 'clear_dead_run "$work/run"' EXIT  # the run this test kills leaves its lock (and temp files)
timeout -s KILL 90 "$mpiexec" -n "$n" "$bin" --config "$config" --no-progress --set train.max_steps=400 \
  --set train.checkpoint_every=2 --set cluster.backend=mpi --set cluster.nodes="$n" \
  --output-dir "$work/run" 2> "$work/err" &
pid=$!
wait_for_checkpoint "$work/run" $pid || { cat "$work/err"; fail "no checkpoint before the run ended"; }
victim=""
for p in $(rank_pids $pid); do
  r=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^PMI_RANK=//p')
  [ "$r" = "$bad" ] && victim=$p
done
[ -n "$victim" ] || fail "rank $bad not found among $(rank_pids $pid)"
start=$(date +%s.%N)
kill -9 "$victim"
wait $pid; rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
cat "$work/err" >&2
echo "killed rank $bad (pid $victim): exit code $rc after ${elapsed}s"
[ $rc -ne 0 ] || fail "exit code 0"
[ $rc -ne 137 ] || fail "the job hung and was killed"
awk -v e="$elapsed" 'BEGIN { exit !(e < 30) }' || fail "took ${elapsed}s (limit 30 s)"
# Either a surviving rank saw it first ("rank 2 (pid P) is no longer running") or the dead
# rank's watcher did ("rank 2 of 4 (pid P on HOST) was the first rank here to end ...").
grep -Eq "rank $bad( of $n)? \(pid $victim( on [^)]*)?\) (is no longer running|was the first rank here to end without a clean exit)" \
  "$work/err" || fail "no line naming rank $bad (pid $victim)"
grep -q "was the first rank here to end" "$work/err" && [ "$(grep -c "was the first rank here to end" "$work/err")" != 1 ] &&
  fail "more than one rank claims to have ended first"
other=$(grep "was the first rank here to end" "$work/err" | grep -Ev "rank $bad of $n \(pid $victim ")
[ -z "$other" ] || fail "a line names another rank as the first to end: $other"
left=$(rank_pids $pid)
[ -z "$left" ] || fail "ranks still running: $left"
echo "ok: the death of rank $bad was reported by name"
