#!/usr/bin/env bash
# A run resumed on other BLAS kernels (another CPU model, another OPENBLAS_CORETYPE) goes on,
# but its low-order bits leave an uninterrupted run's: the resume must say so in one warning
# line naming the earlier kernels and the OPENBLAS_CORETYPE that restores them, and
# summary.json "kernels" must list both segments; a resume on the same kernels must not warn.
# The first part runs on OpenBLAS's generic Prescott (SSE3) kernels, which every x86-64 CPU
# runs; the resume runs on the default choice. Skipped (77) where the default is Prescott too,
# or the BLAS is not OpenBLAS.
# With MPIEXEC: also an `mpiexec -n 2` job whose rank 0 runs Prescott and rank 1 the default
# kernels must print one warning naming both (and a job on one kind of kernels none).
# Usage: kernel_change.sh RUN_EXPERIMENT CONFIG WORKDIR [MPIEXEC]
set -euo pipefail
bin=$1 config=$2 work=$3 mpiexec=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
unset OPENBLAS_CORETYPE SL_BLAS
default=$("$bin" --version | sed -n 's/^BLAS: \(.*\), core \([^ ]*\) .*/\1 \2/p')
case "$default" in
  OpenBLAS*) ;;
  *) echo "SKIP: the default BLAS is not OpenBLAS ($default)"; exit 77 ;;
esac
[ "${default##* }" != Prescott ] || { echo "SKIP: the default OpenBLAS core is Prescott already"; exit 77; }
common=(--config "$config" --no-progress --set train.max_steps=16 --set train.checkpoint_every=5
        --set valid.every=8 --set cluster.nodes=2)

# stop_at DIR STEP [ENV...]: run until every node is paused at the end of STEP (however loaded
# the machine), then SIGTERM: a checkpoint at the step the stop lands on; prints that step.
stop_at() {
  local dir=$1 step=$2; shift 2
  env "$@" $(pause_env "$dir.pause" "$step") "$bin" "${common[@]}" --output-dir "$dir" 2> "$dir.err" &
  local pid=$!
  mkdir -p "$dir.pause"
  wait_for_pause "$dir.pause" $pid 2 || { cat "$dir.err"; fail "the run ended before it paused at step $step"; }
  kill -TERM $pid
  release_pause "$dir.pause"
  local rc=0; wait $pid || rc=$?
  [ $rc -eq 0 ] || { cat "$dir.err"; fail "exit code $rc after SIGTERM, expected 0"; }
  json_field "$dir/summary.json" steps
}

t=$(stop_at "$work/changed" 6 OPENBLAS_CORETYPE=Prescott)
grep -q "core Prescott" "$work/changed.err" || { cat "$work/changed.err"; fail "the first part did not run on Prescott"; }
"$bin" "${common[@]}" --output-dir "$work/changed" --resume 2> "$work/changed-resume.err"
cat "$work/changed-resume.err" >&2
n=$(grep -c "warning: steps 1..$t ran on OpenBLAS .* core Prescott, this process runs OpenBLAS .* core ${default##* }" "$work/changed-resume.err" || true)
[ "$n" = 1 ] || fail "expected one warning naming steps 1..$t on Prescott and the new core, got $n"
grep -q "OPENBLAS_CORETYPE=Prescott selects the earlier kernels" "$work/changed-resume.err" || fail "the warning does not say how to restore the kernels"
python3 - "$work/changed/summary.json" "${default##* }" "$t" <<'P'
import json, sys
s = json.load(open(sys.argv[1]))
k = s["kernels"]
assert s["status"] == "complete", s["status"]
assert [x["from_step"] for x in k] == [0, int(sys.argv[3])], k
assert k[0]["core"] == "Prescott" and k[1]["core"] == sys.argv[2], k
assert s["blas"]["core"] == sys.argv[2], s["blas"]
P

# Same kernels on both sides: no warning, one segment.
stop_at "$work/same" 6 >/dev/null
"$bin" "${common[@]}" --output-dir "$work/same" --resume 2> "$work/same-resume.err"
! grep -q "warning: steps" "$work/same-resume.err" || { cat "$work/same-resume.err"; fail "a resume on the same kernels warned"; }
python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernels"]; assert [x["from_step"] for x in k] == [0], k' \
  "$work/same/summary.json"
if [ -n "$mpiexec" ]; then
  mpi=(--config "$config" --no-progress --set train.max_steps=2 --set valid.every=0
       --set cluster.nodes=2 --set cluster.backend=mpi)
  "$mpiexec" -n 1 -env OPENBLAS_CORETYPE Prescott "$bin" "${mpi[@]}" --output-dir "$work/mpi-mixed" : \
    -n 1 "$bin" "${mpi[@]}" --output-dir "$work/mpi-mixed" 2> "$work/mpi-mixed.err"
  n=$(grep -c "warning: the ranks compute on different BLAS kernels: rank 0 on OpenBLAS .* core Prescott on .*, rank 1 on OpenBLAS .* core ${default##* } on " "$work/mpi-mixed.err" || true)
  [ "$n" = 1 ] || { cat "$work/mpi-mixed.err"; fail "mixed kernels under MPI: expected one warning naming both ranks, got $n"; }
  "$mpiexec" -n 2 "$bin" "${mpi[@]}" --output-dir "$work/mpi-same" 2> "$work/mpi-same.err"
  ! grep -q "different BLAS kernels" "$work/mpi-same.err" || { cat "$work/mpi-same.err"; fail "one kind of kernels under MPI warned"; }
fi
echo "kernel_change: OK (Prescott -> ${default##* } warned once and was recorded; the same kernels did not warn${mpiexec:+; mixed ranks under MPI warned once})"
