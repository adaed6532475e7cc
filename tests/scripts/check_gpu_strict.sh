#!/usr/bin/env bash
# ctest bench_gpu_strict_rule: in bench/gpu/run-on-gpu.sh's real mode every SKIP and every
# empty value is a FAIL. --dry-run --strict applies that rule here; each case takes a tool
# away or fakes its output and checks the row and the exit status.
#   check_gpu_strict.sh REPO BUNDLE WORK
set -u
repo=$1 bundle=$2 work=$3
script=$repo/bench/gpu/run-on-gpu.sh
rm -rf "$work"
mkdir -p "$work"
fail=0
case_() {  # NAME EXPECTED_EXIT ROW_REGEX -- ENV... -- ARGS...
  local name=$1 want=$2 regex=$3
  shift 3
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" bash "$script" --dry-run --bundle "$bundle" --out "$work/$name" "$@" >"$work/$name.txt" 2>&1
  local rc=$?
  local table=$work/$name/gpu-table.md
  if [[ $rc != "$want" ]]; then echo "FAIL $name: exit $rc, expected $want"; fail=1
  elif ! grep -Eq "$regex" "$table"; then echo "FAIL $name: no row matching /$regex/ in $table"; cat "$table"; fail=1
  else echo "ok $name: exit $rc, $(grep -E "$regex" "$table" | head -1)"; fi
}
# No MPI launcher: SKIP in a dry run, FAIL under the real run's rule.
case_ mpi-missing-dry 0 '^\| configs/tiny.*\| SKIP \|' SL_MPIEXEC=/nonexistent/mpiexec -- --steps mpi
case_ mpi-missing-strict 1 '^\| configs/tiny.*\| FAIL \| MPI launcher /nonexistent/mpiexec not found \(a skip is a failure here\)' \
  SL_MPIEXEC=/nonexistent/mpiexec -- --strict --steps mpi
# No Python with torch: the same.
case_ torch-missing-strict 1 '^\| Transformer-base step, cpu \| FAIL \|.*no Python with torch' SL_TORCH_PYTHON= -- --strict --steps bench
# A PyTorch side that prints JSON without the timing: an empty value fails in either mode.
fake=$work/fake-python
printf '#!/bin/sh\necho %s\n' "'{\"side\": \"pytorch\", \"torch\": \"fake\", \"last_loss\": 1.0}'" >"$fake"
chmod +x "$fake"
case_ torch-empty-value 1 '^\| Transformer-base step, cpu \| FAIL \| torch_step.py output lacks: event_median_s' \
  SL_TORCH_PYTHON="$fake" -- --steps bench
exit $fail
