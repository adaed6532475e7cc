#!/usr/bin/env bash
# A NaN in node 0's gradient at step STEP (fault injection, SL_FAULT_NONFINITE_STEP):
# on_nonfinite=skip completes the run and reports the step and parameter; on_nonfinite=stop
# ends with exit code 3 and summary.json "incomplete" naming the step and the last good
# checkpoint intact (a later --resume from it completes). A suite rerun skips such a run.
# Usage: nonfinite.sh RUN_EXPERIMENT CONFIG WORKDIR
set -euo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=20 --set train.checkpoint_every=5
        --set train.log_every=1 --set valid.test_at_end=false)

SL_FAULT_NONFINITE_STEP=7 "$bin" "${common[@]}" --set train.on_nonfinite=skip --output-dir "$work/skip" \
  2> "$work/skip.err" || { cat "$work/skip.err"; fail "skip run failed"; }
grep "non-finite" "$work/skip.err"
grep -q "node 0 step 7: non-finite gradient .*first in parameter [A-Za-z]" "$work/skip.err" ||
  fail "no report naming step 7 and a parameter"
[ "$(json_field "$work/skip/summary.json" status)" = complete ] || fail "skip run not complete"
[ "$(json_field "$work/skip/summary.json" skipped_steps)" = 1 ] || fail "skipped_steps != 1"
python3 - "$work/skip/log.jsonl" <<'PY' || fail "log.jsonl has a line for the skipped step 7"
import json, sys
steps = [json.loads(l)["step"] for l in open(sys.argv[1])]
assert 7 not in steps and 8 in steps, steps
PY

rc=0
SL_FAULT_NONFINITE_STEP=12 "$bin" "${common[@]}" --set train.on_nonfinite=stop --output-dir "$work/stop" \
  2> "$work/stop.err" || rc=$?
cat "$work/stop.err" >&2
echo "on_nonfinite=stop: exit code $rc"
[ $rc -eq 3 ] || fail "exit code $rc, expected 3 (stopped on a non-finite value; README's exit codes)"
sum=$work/stop/summary.json
[ "$(json_field "$sum" status)" = incomplete ] || fail "stop run: status $(json_field "$sum" status)"
[[ "$(json_field "$sum" reason)" == *"step 12"* ]] || fail "reason does not name step 12: $(json_field "$sum" reason)"
[ "$(cat "$work/stop/checkpoints/latest")" = step-00000010 ] || fail "latest is not the last good step 10"
[[ "$(json_field "$sum" last_checkpoint)" == *step-00000010 ]] || fail "summary last_checkpoint is not step 10"
"$bin" "${common[@]}" --output-dir "$work/stop" --resume 2> "$work/resume.err" ||
  { cat "$work/resume.err"; fail "resume from the last good checkpoint failed"; }
[ "$(json_field "$sum" status)" = complete ] || fail "resumed run not complete"

# In a suite, a run that stopped on a non-finite value is a result: a rerun of the suite skips
# it (resuming would replay the same updates into the same stop) and says how to run it again.
cat > "$work/suite.json" <<JSON
{"name": "s", "experiments": [{"name": "e", "config": "$(realpath "$config")",
  "set": ["train.max_steps=20", "train.checkpoint_every=5", "valid.test_at_end=false",
          "train.on_nonfinite=stop"]}]}
JSON
suite=(--suite "$work/suite.json" --output-root "$work/root" --no-progress)
rc=0
SL_FAULT_NONFINITE_STEP=12 "$bin" "${suite[@]}" 2> "$work/suite1.err" || rc=$?
[ $rc -eq 3 ] || { cat "$work/suite1.err"; fail "suite: exit code $rc, expected 3"; }
before=$(cat "$work/root/s/e/summary.json" "$work/root/s/e/log.jsonl" | md5sum)
rc=0
"$bin" "${suite[@]}" 2> "$work/suite2.err" || rc=$?
cat "$work/suite2.err"
[ $rc -eq 0 ] || fail "suite rerun: exit code $rc, expected 0 (nothing ran)"
grep -q "\[e\] stopped on a non-finite value earlier (non-finite loss or gradient at step 12), skipped: .*pass --overwrite or remove $work/root/s/e to run it again" \
  "$work/suite2.err" || fail "the suite rerun did not skip the diverged run with its reason"
[ "$(cat "$work/root/s/e/summary.json" "$work/root/s/e/log.jsonl" | md5sum)" = "$before" ] ||
  fail "the suite rerun touched the diverged run"
"$bin" "${suite[@]}" --overwrite 2> "$work/suite3.err" || { cat "$work/suite3.err"; fail "suite --overwrite"; }
[ "$(json_field "$work/root/s/e/summary.json" status)" = complete ] || fail "suite --overwrite did not run it again"
echo "ok: skip reported and skipped step 7; stop kept step-00000010 and resumed from it; a suite skips a diverged run until --overwrite"
