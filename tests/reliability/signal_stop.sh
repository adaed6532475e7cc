#!/usr/bin/env bash
# SIGTERM / SIGUSR1 (what Slurm sends before the time limit) to every process of a running
# job: expects exit code 0, a checkpoint at the stop step, summary.json "incomplete" naming
# that step, and that --resume then ends bit-identical to an uninterrupted run. The signal
# comes while every node is paused at the end of step 8 (SL_FAULT_PAUSE_*, after the
# checkpoint of step 7), so the run cannot end before it however loaded the machine is.
# Usage: signal_stop.sh RUN_EXPERIMENT CONFIG WORKDIR SIGNAL [MPIEXEC N]
set -euo pipefail
bin=$1 config=$2 work=$3 sig=$4 mpiexec=${5:-} n=${6:-4}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=24 --set train.checkpoint_every=7
        --set valid.every=10 --set train.log_every=1 --set cluster.nodes="$n")
launch=()
if [ -n "$mpiexec" ]; then
  common+=(--set cluster.backend=mpi)
  launch=("$mpiexec" -n "$n")
fi
"${launch[@]}" "$bin" "${common[@]}" --output-dir "$work/straight"
env $(pause_env "$work/pause" 8) "${launch[@]}" "$bin" "${common[@]}" --output-dir "$work/stopped" 2> "$work/stopped.err" &
pid=$!
wait_for_pause "$work/pause" $pid "$n" || { cat "$work/stopped.err"; fail "the run ended before it paused at step 8"; }
pids=$(rank_pids $pid)
[ -n "$pids" ] || fail "no run-experiment process found under $pid"
echo "sending SIG$sig to $pids (paused at step 8)"
kill -s "$sig" $pids
release_pause "$work/pause"
rc=0; wait $pid || rc=$?
cat "$work/stopped.err" >&2
[ $rc -eq 0 ] || fail "exit code $rc after SIG$sig, expected 0"
sum=$work/stopped/summary.json
[ "$(json_field "$sum" status)" = incomplete ] || fail "summary status is not incomplete: $(cat "$sum")"
steps=$(json_field "$sum" steps)
[ "$steps" -lt 24 ] || fail "the run was not stopped early (steps $steps)"
reason=$(json_field "$sum" reason)
[[ "$reason" == *"step $steps"* ]] || fail "summary reason \"$reason\" does not name step $steps"
latest=$(cat "$work/stopped/checkpoints/latest")
[ "$latest" = "$(basename "$(json_field "$sum" last_checkpoint)")" ] || fail "summary last_checkpoint is not $latest"
[ "$latest" = "step-$(printf %08d "$steps")" ] || fail "latest checkpoint $latest is not at step $steps"
grep -q "stopped at step $steps" "$work/stopped.err" || fail "no 'stopped at step $steps' message"
"${launch[@]}" "$bin" "${common[@]}" --output-dir "$work/stopped" --resume
[ "$(json_field "$sum" status)" = complete ] || fail "resumed run did not complete"
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/stopped"
