#!/usr/bin/env bash
# SIGKILL to every rank of an `mpiexec -n N` job at a moment chosen by SEED (after its first
# committed checkpoint, possibly during a later checkpoint write), then --resume under
# mpiexec -n N: parameters of every node and the log lines must equal an uninterrupted run's.
# Usage: mpi_kill_resume.sh RUN_EXPERIMENT CONFIG WORKDIR SEED MPIEXEC [N]
set -euo pipefail
bin=$1 config=$2 work=$3 seed=$4 mpiexec=$5 n=${6:-4}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=40 --set train.checkpoint_every=5
        --set valid.every=20 --set train.log_every=1 --set cluster.backend=mpi --set cluster.nodes="$n")
"$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/straight"
"$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/killed" 2> "$work/killed.err" &
pid=$!
wait_for_checkpoint "$work/killed" $pid || echo "the run ended before its first checkpoint was seen"
sleep "$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.3f", rand() * 0.6 }')"
pids=$(rank_pids $pid)
if [ -n "$pids" ]; then
  kill -9 $pids 2>/dev/null || true
  echo "killed ranks $pids after step $(tail -n 1 "$work/killed/log.jsonl" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())[\"step\"])" 2>/dev/null)"
else
  echo "the run ended before the kill (the resume below then checks a completed run)"
fi
wait $pid 2>/dev/null || true
"$mpiexec" -n "$n" "$bin" "${common[@]}" --output-dir "$work/killed" --resume
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/killed"
