#!/usr/bin/env bash
# best-model.ckpt after a resume must be the best model as of the resumed checkpoint, not one
# that a validation after the checkpoint wrote before the kill. The kill is emulated exactly:
# a run validated up to step 20 (checkpoints at 10 and 20), then `latest` is pointed back at
# step 10, as if the job had died after validating at 15 and 20 but before committing 20.
# The resumed run ends at step 10, so it never replays those validations.
# Usage: best_model_resume.sh RUN_EXPERIMENT CONFIG WORKDIR
set -uo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
run=$work/run
common=(--config "$config" --no-progress --set train.checkpoint_every=10 --set valid.every=5
        --set train.keep_checkpoints=2 --output-dir "$run")
"$bin" "${common[@]}" --set train.max_steps=20 --set valid.test_at_end=false > "$work/first.log" 2>&1 ||
  { cat "$work/first.log"; fail "the first run failed"; }
step10=$run/checkpoints/step-00000010
[ -f "$step10/best-model.ckpt" ] || fail "checkpoint step 10 carries no best-model.ckpt (has: $(ls "$step10" | tr "\n" " "))"
echo "step-00000010" > "$run/checkpoints/latest"
"$bin" "${common[@]}" --set train.max_steps=10 --resume > "$work/resume.log" 2>&1 ||
  { cat "$work/resume.log"; fail "the resumed run failed"; }
cmp -s "$step10/best-model.ckpt" "$run/best-model.ckpt" ||
  fail "best-model.ckpt is not the one of step 10's checkpoint (a validation after it wrote it)"
best=$(json_field "$run/summary.json" best_step)
[ -n "$best" ] && [ "$best" -le 10 ] || fail "summary.json best_step $best is after the resumed step 10"
echo "ok: best-model.ckpt and best_step ($best) are those of the resumed checkpoint"
