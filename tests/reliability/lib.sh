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
