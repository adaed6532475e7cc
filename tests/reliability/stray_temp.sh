#!/usr/bin/env bash
# No "*.tmp.<pid>" may stay in a results directory after a resume (issue 31 item 4). Resuming
# relinks checkpoints/step-N/best-model.ckpt to best-model.ckpt; both were already the same
# file, and rename(2) of one link onto another of the same file does nothing, so the temp
# name stayed. Checked after --resume of a finished run, and after a suite rerun resumes an
# experiment that failed (SL_FAULT_THROW_RANK at step 13, after the checkpoint of step 10).
# Usage: stray_temp.sh RUN_EXPERIMENT CONFIG WORKDIR
set -uo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--no-progress --set train.checkpoint_every=10 --set valid.every=5 --set valid.test_at_end=false)
no_temp_files() {  # DIR WHEN
  local left
  left=$(find "$1" -name '*.tmp' -o -name '*.tmp.*')
  [ -z "$left" ] || fail "temporary files left $2: $left"
}

"$bin" --config "$config" "${common[@]}" --set train.max_steps=20 --output-dir "$work/run" 2> "$work/first.err" ||
  { cat "$work/first.err"; fail "first run"; }
no_temp_files "$work/run" "after a complete run"
"$bin" --config "$config" "${common[@]}" --set train.max_steps=30 --output-dir "$work/run" --resume 2> "$work/resume.err" ||
  { cat "$work/resume.err"; fail "resume"; }
grep -q "resumed from .*step-00000020" "$work/resume.err" || fail "the run did not resume from step 20"
no_temp_files "$work/run" "after --resume"

cat > "$work/suite.json" <<JSON
{"name": "s", "experiments": [{"name": "e", "config": "$(realpath "$config")", "set": ["train.max_steps=20"]}]}
JSON
suite=(--suite "$work/suite.json" --output-root "$work/root" "${common[@]}")
rc=0
SL_FAULT_THROW_RANK=0 SL_FAULT_THROW_STEP=13 "$bin" "${suite[@]}" 2> "$work/suite-fail.err" || rc=$?
[ $rc = 1 ] || { cat "$work/suite-fail.err"; fail "the suite with a failing node: exit code $rc, expected 1"; }
[ "$(cat "$work/root/s/e/checkpoints/latest")" = step-00000010 ] || fail "setup: no checkpoint of step 10"
"$bin" "${suite[@]}" 2> "$work/suite-rerun.err" || { cat "$work/suite-rerun.err"; fail "suite rerun"; }
grep -q "resumed from .*step-00000010" "$work/suite-rerun.err" || fail "the suite rerun did not resume from step 10"
no_temp_files "$work/root" "after a suite rerun"
echo "ok: no temporary file left after --resume or a suite rerun"
