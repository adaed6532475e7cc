#!/usr/bin/env bash
# Two runs on one results directory: the second must exit 2 at once, naming the holder (pid
# and host), and leave the first run's files alone (its logs equal a run that had the
# directory to itself). A lock file left by a dead process is taken over with a message.
# With MPIEXEC the same under `mpiexec -n 2` (rank 0 holds the lock), and for a suite (which
# with --skip-busy skips the held experiment and runs the next).
# The first run pauses at the end of step 3 (SL_FAULT_PAUSE_*) until the second has been
# refused, so it is still running then however loaded the machine is.
# Usage: results_lock.sh RUN_EXPERIMENT CONFIG WORKDIR [MPIEXEC]
set -uo pipefail
bin=$1 config=$2 work=$3 mpiexec=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
steps=10  # the first run pauses at step 3 until the second is refused, then ends
common=(--config "$config" --no-progress --set train.max_steps=$steps --set train.checkpoint_every=5
        --set train.log_every=1 --set valid.every=0 --set valid.test_at_end=false --set cluster.nodes=4)

second_must_fail() {  # DIR HOLDER_PID ARGS...: a second run on DIR while HOLDER_PID runs
  local dir=$1 holder=$2; shift 2
  local rc=0
  "$@" 2> "$work/second.err" || rc=$?
  cat "$work/second.err" >&2
  [ $rc -eq 2 ] || fail "second run: exit code $rc, expected 2"
  grep -q "$dir/.lock: the results directory is in use by run-experiment pid $holder on host $(hostname)" \
    "$work/second.err" || fail "the error does not name the holder (pid $holder on $(hostname))"
}

# 1. sim: a second run (even with --overwrite) while the first trains.
env $(pause_env "$work/pause-a" 3) "$bin" "${common[@]}" --output-dir "$work/a" 2> "$work/a.err" &
pid=$!
wait_for_pause "$work/pause-a" $pid 4 || { cat "$work/a.err"; fail "first run ended before it paused"; }
second_must_fail "$work/a" $pid "$bin" "${common[@]}" --output-dir "$work/a" --overwrite \
  --set distributed.method=sparse
release_pause "$work/pause-a"
wait $pid || { cat "$work/a.err"; fail "the first run failed"; }
python3 - "$work/a" "$steps" <<'PY' || fail "the first run's files were disturbed"
import json, sys
d = sys.argv[1]
steps = [json.loads(l)["step"] for l in open(d + "/log.jsonl")]
assert steps == list(range(1, int(sys.argv[2]) + 1)), steps
assert json.load(open(d + "/config.json"))["distributed"]["method"] == "dense"
assert json.load(open(d + "/summary.json"))["method"] == "dense"
PY
[ ! -e "$work/a/.lock" ] || fail "the lock file was not removed at the end"

# 2. a lock file left by a process that no longer runs is taken over, with a message.
mkdir -p "$work/stale"
echo "run-experiment pid 999999 on host $(hostname) (started 2020-01-01T00:00:00Z)" > "$work/stale/.lock"
"$bin" "${common[@]}" --set train.max_steps=3 --output-dir "$work/stale" 2> "$work/stale.err" ||
  { cat "$work/stale.err"; fail "the run did not take over a stale lock"; }
grep -q "taking over the lock $work/stale/.lock left by run-experiment pid 999999" "$work/stale.err" ||
  { cat "$work/stale.err"; fail "no message about the stale lock"; }

# 3. a suite whose experiment directory is held.
cat > "$work/suite.json" <<JSON
{"name": "s", "experiments": [{"name": "e", "config": "$config",
  "set": ["train.max_steps=3", "valid.every=0", "valid.test_at_end=false"]}]}
JSON
mkdir -p "$work/root/s"
env $(pause_env "$work/pause-b" 3) "$bin" "${common[@]}" --output-dir "$work/root/s/e" 2> "$work/b.err" &
pid=$!
wait_for_pause "$work/pause-b" $pid 4 || { cat "$work/b.err"; fail "run ended before it paused"; }
second_must_fail "$work/root/s/e" $pid "$bin" --suite "$work/suite.json" --output-root "$work/root" --overwrite --no-progress
# 3b. the same suite with --skip-busy: the held experiment is skipped (exit 0, a note naming
# the holder), the next one runs, and the held one's files stay the holder's.
cat > "$work/suite2.json" <<JSON
{"name": "s", "experiments": [{"name": "e", "config": "$config",
  "set": ["train.max_steps=3", "valid.every=0", "valid.test_at_end=false"]},
  {"name": "f", "config": "$config",
  "set": ["train.max_steps=2", "valid.every=0", "valid.test_at_end=false"]}]}
JSON
rc=0
"$bin" --suite "$work/suite2.json" --output-root "$work/root" --skip-busy --no-progress \
  2> "$work/skip.err" || rc=$?
cat "$work/skip.err" >&2
[ $rc -eq 0 ] || fail "--skip-busy suite: exit code $rc, expected 0"
grep -q "\[e\] busy, skipped (.*in use by run-experiment pid $pid on host" "$work/skip.err" ||
  fail "--skip-busy: no 'busy, skipped' note naming the holder"
[ "$(python3 -c "import json; print(json.load(open('$work/root/s/f/summary.json'))['status'])")" = complete ] ||
  fail "--skip-busy: the next experiment did not run"
release_pause "$work/pause-b"
wait $pid || fail "the run holding the suite's directory failed"
n=$(wc -l < "$work/root/s/e/log.jsonl")
[ "$n" = "$steps" ] || fail "the held experiment's log has $n lines, expected the holder's $steps"

# 4. MPI: rank 0 of `mpiexec -n 2` holds the lock; a second mpiexec job exits 2.
if [ -n "$mpiexec" ]; then
  mpi=(--set cluster.backend=mpi --set cluster.nodes=2)
  env $(pause_env "$work/pause-m" 3) "$mpiexec" -n 2 "$bin" "${common[@]}" "${mpi[@]}" --output-dir "$work/m" 2> "$work/m.err" &
  pid=$!
  wait_for_pause "$work/pause-m" $pid 2 || { cat "$work/m.err"; fail "MPI run ended before it paused"; }
  holder=""
  for p in $(rank_pids $pid); do
    [ "$(tr '\0' '\n' < /proc/$p/environ | sed -n 's/^PMI_RANK=//p')" = 0 ] && holder=$p
  done
  second_must_fail "$work/m" "$holder" timeout -s KILL 60 "$mpiexec" -n 2 "$bin" "${common[@]}" "${mpi[@]}" \
    --output-dir "$work/m" --overwrite
  release_pause "$work/pause-m"
  wait $pid || { cat "$work/m.err"; fail "the first MPI run failed"; }
  n=$(wc -l < "$work/m/log.jsonl")
  [ "$n" = "$steps" ] || fail "the first MPI run's log has $n lines, expected $steps"
fi
echo "ok: second runs refused naming the holder; stale lock taken over; --skip-busy skips a held experiment"
