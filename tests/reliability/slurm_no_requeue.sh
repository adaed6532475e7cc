#!/usr/bin/env bash
# scripts/slurm/train.sbatch without Slurm: a fake launcher and a fake run-experiment that
# gets the pre-emption signal (USR1 to the batch shell) and then exits with CODE; a fake
# scontrol records requeues. Exit code 3 (on_nonfinite=stop) and 2 (bad input) must not be
# requeued as if they were a pre-emption; 0 (checkpointed on the signal) must be.
# Usage: slurm_no_requeue.sh REPO WORKDIR
set -uo pipefail
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/bin/scontrol" <<'SH'
#!/bin/bash
echo "scontrol $*" >> "$SL_TEST_LOG"
SH
cat > "$work/bin/launcher" <<'SH'
#!/bin/bash
shift 2   # "-n N"
exec "$@"
SH
cat > "$work/fake-run-experiment" <<'SH'
#!/bin/bash
trap '' TERM USR1
kill -USR1 $PPID          # the batch shell: Slurm's pre-emption notice
sleep 0.5
exit "$SL_TEST_CODE"
SH
chmod +x "$work/bin/scontrol" "$work/bin/launcher" "$work/fake-run-experiment"
echo '{}' > "$work/c.json"
for code in 3 2 0; do
  : > "$work/log-$code"
  rc=0
  PATH="$work/bin:$PATH" SL_TEST_LOG="$work/log-$code" SL_TEST_CODE=$code SLURM_JOB_ID=77 SLURM_NTASKS=1 \
    SL_REPO="$repo" SL_BINARY="$work/fake-run-experiment" SL_LAUNCHER=mpiexec SL_MPIEXEC="$work/bin/launcher" \
    SL_OUTPUT_DIR="$work/out" bash "$repo/scripts/slurm/train.sbatch" "$work/c.json" 2> "$work/err-$code" || rc=$?
  cat "$work/err-$code" >&2
  if [ "$code" = 0 ]; then
    grep -q "scontrol requeue 77" "$work/log-$code" || fail "a clean stop on the signal was not requeued"
  else
    [ ! -s "$work/log-$code" ] || fail "exit code $code was requeued: $(cat "$work/log-$code")"
    [ $rc -eq "$code" ] || fail "train.sbatch exited $rc, expected $code"
  fi
done
echo "ok: exit codes 2 and 3 are not requeued, a checkpointed stop is"
