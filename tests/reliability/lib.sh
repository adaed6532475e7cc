# Helpers shared by the reliability scripts (sourced).
# rank_pids PID: the run-experiment processes among PID and its descendants (the ranks
# mpiexec started, or PID itself for a simulated-cluster run).
rank_pids() {
  local todo=("$1") out=() p
  while [ ${#todo[@]} -gt 0 ]; do
    p=${todo[0]}; todo=("${todo[@]:1}")
    [ "$(ps -o comm= -p "$p" 2>/dev/null)" = "run-experiment" ] && out+=("$p")
    for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do todo+=("$c"); done
  done
  echo "${out[@]}"
}

# wait_for_checkpoint DIR PID: until DIR/checkpoints/latest exists (or PID ended).
wait_for_checkpoint() {
  for _ in $(seq 1 1500); do
    [ -f "$1/checkpoints/latest" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.02
  done
  return 1
}

# json_field FILE KEY: one top-level value of a JSON file.
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"; }

fail() { echo "FAIL: $*" >&2; exit 1; }

# wait_for_log_lines DIR PID N: until DIR/log.jsonl has N lines (or PID ended).
wait_for_log_lines() {
  for _ in $(seq 1 1500); do
    [ -f "$1/log.jsonl" ] && [ "$(wc -l < "$1/log.jsonl")" -ge "$3" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.02
  done
  return 1
}

# The test hook SL_FAULT_PAUSE_STEP / SL_FAULT_PAUSE_DIR (lib/train/fault_injection.h): every
# node of the run stops at the end of a known step and waits, so a test acts at that step
# however loaded the machine is, never after a guessed delay.
# pause_env DIR STEP: the environment that makes a run pause (prefix a command with it).
pause_env() { echo "SL_FAULT_PAUSE_DIR=$1 SL_FAULT_PAUSE_STEP=$2"; }
# wait_for_pause DIR PID N: until N nodes have paused (DIR/paused-<rank>), or PID ended.
# Whatever happens next, the script releases them when it exits (no run waits on a failed test).
_paused_dirs=()
wait_for_pause() {
  _paused_dirs+=("$1")
  trap 'for d in "${_paused_dirs[@]}"; do touch "$d/continue" 2>/dev/null; done' EXIT
  while [ "$(find "$1" -maxdepth 1 -name 'paused-*' ! -name '*.tmp.*' 2>/dev/null | wc -l)" -lt "$3" ]; do
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.02
  done
}
# release_pause DIR: the paused nodes go on.
release_pause() { touch "$1/continue"; }

# clear_dead_run DIR: a run killed or crashed on purpose leaves DIR/.lock (the kernel drops its
# flock; the file stays until the next run takes it over, as results_lock.sh checks) and may
# leave "*.tmp.<pid>" files of writes it was in the middle of (the next --resume removes them,
# as resume_early.sh checks). Checks that no live process holds the lock or wrote the temp
# files, then removes them, so the tests leave none behind (leftovers.sh).
clear_dead_run() {
  local f pid
  [ -d "$1" ] || return 0
  if [ -e "$1/.lock" ]; then
    flock -n "$1/.lock" true || fail "$1/.lock is still held by a live process"
    echo "removing the lock a dead run left: $(cat "$1/.lock")"
    rm -f "$1/.lock"
  fi
  for f in $(find "$1" -name '*.tmp.*'); do
    pid=${f##*.tmp.}
    ! kill -0 "$pid" 2>/dev/null || fail "$f: process $pid is still running"
    echo "removing a temporary file a dead run left: $f"
    rm -f "$f"
  done
}
