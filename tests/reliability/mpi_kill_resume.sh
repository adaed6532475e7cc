#!/usr/bin/env bash
# SIGKILL to every rank of an `mpiexec -n N` job at a moment chosen by SEED (after its first
# committed checkpoint, possibly during a later checkpoint write; SEED "early": while every
# rank is paused at the end of step 3 (SL_FAULT_PAUSE_*), before the first checkpoint is
# committed, however loaded the machine is), then --resume under
# mpiexec -n N: parameters of every node and the log lines must equal an uninterrupted run's.
# Usage: mpi_kill_resume.sh RUN_EXPERIMENT CONFIG WORKDIR SEED MPIEXEC [N]
set -euo pipefail
bin=$1 config=$2 work=$3 seed=$4 mpiexec=$5 n=${6:-4}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=40 --set train.checkpoint_every=5
        --set valid.every=20 --set train.log_every=1 --set cluster.backend=mpi --set cluster.nodes="$n")
if [ "$seed" = early ]; then  # the kill comes before the first committed checkpoint (step 25)
  common+=(--set train.checkpoint_every=25)
fi
"$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/straight"
pause=()
[ "$seed" = early ] && pause=(env $(pause_env "$work/pause" 3))
"${pause[@]}" "$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/killed" 2> "$work/killed.err" &
pid=$!
if [ "$seed" = early ]; then
  wait_for_pause "$work/pause" $pid "$n" || fail "the run ended before it paused at step 3"
else
  wait_for_checkpoint "$work/killed" $pid || echo "the run ended before its first checkpoint was seen"
  sleep "$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.3f", rand() * 0.6 }')"
fi
pids=$(rank_pids $pid)
if [ -n "$pids" ]; then
  kill -9 $pids 2>/dev/null || true
  echo "killed ranks $pids after step $(tail -n 1 "$work/killed/log.jsonl" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())[\"step\"])" 2>/dev/null)"
else
  echo "the run ended before the kill (the resume below then checks a completed run)"
fi
wait $pid 2>/dev/null || true
if [ "$seed" = early ] && [ -e "$work/killed/checkpoints/latest" ]; then
  fail "setup: a checkpoint was committed before the kill"
fi
"$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/killed" --resume
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/killed"
