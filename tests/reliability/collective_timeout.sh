#!/usr/bin/env bash
# A node that stops answering (issue 31 item 9), with cluster.collective_timeout_s set: every
# other node gives up after that long with a message naming the node that never arrived,
# exit code 1, and the last committed checkpoint resumes to a result equal to an
# uninterrupted run (which ran without a timeout: the timeout changes no number).
#   sim:     node 2 of 4 hangs at step 13 (SL_FAULT_HANG_RANK: it sleeps for good)
#   MPIEXEC: rank 2 of `mpiexec -n 4` gets SIGSTOP while every rank is paused at the end of
#            step 12 (SL_FAULT_PAUSE_*), then the others go on into step 13
# Checkpoints every 5 steps: the one of step 10 is the last before the stop.
# Usage: collective_timeout.sh RUN_EXPERIMENT CONFIG WORKDIR sim|MPIEXEC [N]
set -uo pipefail
bin=$1 config=$2 work=$3 launcher=$4 n=${5:-4}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
timeout_s=8  # well above a step of the tiny model on a loaded machine
common=(--config "$config" --no-progress --set train.max_steps=20 --set train.checkpoint_every=5
        --set train.log_every=1 --set valid.every=0 --set valid.test_at_end=false --set cluster.nodes="$n")
if [ "$launcher" = sim ]; then
  launch=() word=node
else
  launch=("$launcher" -n "$n") word=rank
  common+=(--set cluster.backend=mpi)
fi
"${launch[@]}" "$bin" "${common[@]}" --output-dir "$work/straight" 2> "$work/straight.err" ||
  { cat "$work/straight.err"; fail "straight run"; }

with_timeout=(--set cluster.collective_timeout_s=$timeout_s --output-dir "$work/run")
stopped=""
if [ "$launcher" = sim ]; then
  SL_FAULT_HANG_RANK=2 SL_FAULT_HANG_STEP=13 timeout -s KILL 120 \
    "$bin" "${common[@]}" "${with_timeout[@]}" 2> "$work/run.err" &
  pid=$!
else
  env $(pause_env "$work/pause" 12) timeout -s KILL 120 \
    "${launch[@]}" "$bin" "${common[@]}" "${with_timeout[@]}" 2> "$work/run.err" &
  pid=$!
  wait_for_pause "$work/pause" $pid "$n" || { cat "$work/run.err"; fail "the ranks did not pause at step 12"; }
  others=()
  for p in $(rank_pids $pid); do
    r=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^PMI_RANK=//p')
    if [ "$r" = 2 ]; then stopped=$p; else others+=("$p"); fi
  done
  [ -n "$stopped" ] || fail "rank 2 not found among $(rank_pids $pid)"
  kill -STOP "$stopped"
  echo "SIGSTOP to rank 2 (pid $stopped) at step 12"
  cpu() { local t=0; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat 2>/dev/null || echo 0))); done; echo $t; }
  before=$(cpu "${others[@]}")
  release_pause "$work/pause"
  sleep $((timeout_s - 1))  # a measurement for the log, not a condition of the test
  after=$(cpu "${others[@]}")
  echo "CPU time of the ${#others[@]} waiting ranks in the $((timeout_s - 1)) s after the stop: $(( (after - before) * 1000 / $(getconf CLK_TCK) )) ms"
fi
rc=0; wait $pid || rc=$?
[ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null
cat "$work/run.err" >&2
echo "exit code $rc"
[ $rc != 137 ] || fail "the job hung until it was killed"
[ $rc = 1 ] || fail "exit code $rc, expected 1"
# (Another node still computing its step on a loaded machine is named too, rightly.)
grep -Eq "collective timeout: .* waited $timeout_s s \(cluster.collective_timeout_s\) for $word\(s\) ([0-9]+, )*2(, [0-9]+)*, which never entered it" \
  "$work/run.err" || fail "no message naming $word 2 as one that never arrived"
grep -q "the last committed checkpoint is .*step-00000010: continue from it with --resume" "$work/run.err" ||
  fail "the message does not name the checkpoint to resume from"
[ "$(cat "$work/run/checkpoints/latest")" = step-00000010 ] || fail "latest checkpoint is not step 10"
[ "$(json_field "$work/run/summary.json" status)" = incomplete ] || fail "summary.json is not incomplete"
left=$(rank_pids $pid)
[ -z "$left" ] || fail "processes still running: $left"
"${launch[@]}" "$bin" "${common[@]}" "${with_timeout[@]}" --resume 2> "$work/resume.err" ||
  { cat "$work/resume.err"; fail "resume failed"; }
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/run" || fail "the resumed run differs from an uninterrupted one"
echo "ok: the $word that stopped answering was named; the run resumed from step 10 to the uninterrupted result"
