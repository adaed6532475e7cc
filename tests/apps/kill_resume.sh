#!/usr/bin/env bash
# Kills a training run with SIGKILL at a moment chosen by SEED (after its first committed
# checkpoint, possibly in the middle of writing a later one), resumes it, and checks that
# the parameters of every node and the log lines equal an uninterrupted run's.
# Usage: kill_resume.sh RUN_EXPERIMENT CONFIG WORKDIR SEED [extra run-experiment args...]
set -euo pipefail
bin=$1 config=$2 work=$3 seed=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=60 --set train.checkpoint_every=5
        --set valid.every=20 --set train.log_every=1 "$@")
"$bin" "${common[@]}" --output-dir "$work/straight"
"$bin" "${common[@]}" --output-dir "$work/killed" &
pid=$!
# Wait for the first committed checkpoint, then a further random delay of 0-0.5 s.
for _ in $(seq 1 600); do
  [ -f "$work/killed/checkpoints/latest" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.02
done
sleep "$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.3f", rand() * 0.5 }')"
if kill -9 $pid 2>/dev/null; then
  echo "killed at $(tail -n 1 "$work/killed/log.jsonl" | cut -c1-40)..."
else
  echo "the run ended before the kill (the resume below then checks a completed run)"
fi
wait $pid 2>/dev/null || true
"$bin" "${common[@]}" --output-dir "$work/killed" --resume
python3 "$here/compare_runs.py" "$work/straight" "$work/killed"
