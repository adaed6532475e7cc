#!/usr/bin/env bash
# SIGKILL before the first committed checkpoint, then --resume: the run starts from step 0
# and its logs must equal an uninterrupted run's (no old lines kept). Orphan "*.tmp.<pid>"
# files a kill leaves (here planted next to log.jsonl and in a checkpoint folder) are
# removed by the resume. Simulated cluster; mpi_kill_resume.sh "early" does it under MPI.
# Usage: resume_early.sh RUN_EXPERIMENT CONFIG WORKDIR
set -euo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=30 --set train.checkpoint_every=25
        --set valid.every=2 --set train.log_every=1 --set valid.max_sentences=4 --set cluster.nodes=4)
"$bin" "${common[@]}" --output-dir "$work/straight" 2> /dev/null
env $(pause_env "$work/pause" 3) "$bin" "${common[@]}" --output-dir "$work/killed" 2> "$work/killed.err" &
pid=$!
# Every node pauses at the end of step 3 (SL_FAULT_PAUSE_*): the kill comes before step 25's
# checkpoint however loaded the machine is.
wait_for_pause "$work/pause" $pid 4 || fail "the run ended before it paused at step 3"
kill -9 $pid; wait $pid 2>/dev/null || true
[ ! -e "$work/killed/checkpoints/latest" ] || fail "setup: a checkpoint was committed before the kill"
echo "killed after step $(wc -l < "$work/killed/log.jsonl"), before the first checkpoint"
mkdir -p "$work/killed/checkpoints/step-00000025"
touch "$work/killed/log.jsonl.tmp.424242" "$work/killed/checkpoints/step-00000025/node-1.ckpt.tmp.424242"
"$bin" "${common[@]}" --output-dir "$work/killed" --resume 2> "$work/resume.err" ||
  { cat "$work/resume.err"; fail "resume failed"; }
cat "$work/resume.err" >&2
leftover=$(find "$work/killed" -name '*.tmp.*')
[ -z "$leftover" ] || fail "orphan temporary files left: $leftover"
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/killed"
echo "ok: resume before the first checkpoint equals an uninterrupted run"
