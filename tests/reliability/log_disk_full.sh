#!/usr/bin/env bash
# The disk fills up while a line is appended to log.jsonl (issue 31 item 3): write(2) stores
# half the line, then fails with ENOSPC (short_write_preload.c, LD_PRELOAD, at the 13th line).
# The run must fail saying the disk is full and how to continue, log.jsonl must end at its
# last complete line (every line parses), and --resume with space again must equal an
# uninterrupted run.
# Usage: log_disk_full.sh RUN_EXPERIMENT CONFIG WORKDIR SHIM_LIBRARY
set -uo pipefail
bin=$1 config=$2 work=$3 shim=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.max_steps=20 --set train.checkpoint_every=5
        --set train.log_every=1 --set valid.every=10 --set valid.test_at_end=false)
"$bin" "${common[@]}" --output-dir "$work/straight" 2> "$work/straight.err" || { cat "$work/straight.err"; fail "straight run"; }
rc=0
LD_PRELOAD=$shim SL_SHORT_WRITE_SUFFIX=/log.jsonl SL_SHORT_WRITE_NTH=13 \
  "$bin" "${common[@]}" --output-dir "$work/full" 2> "$work/full.err" || rc=$?
cat "$work/full.err" >&2
echo "disk full at log line 13: exit code $rc"
[ $rc = 1 ] || fail "exit code $rc, expected 1"
grep -q "log.jsonl: write failed: No space left on device" "$work/full.err" || fail "the error does not say the disk is full"
grep -q -- "--resume" "$work/full.err" || fail "the error does not say how to continue"
python3 - "$work/full/log.jsonl" <<'PY' || fail "log.jsonl does not end at its last complete line"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "last line is not complete: ...%r" % data[-80:]
steps = [json.loads(line)["step"] for line in data.decode().splitlines()]
assert steps == list(range(1, 13)), steps
print("log.jsonl: %d complete lines, every one parses" % len(steps))
PY
"$bin" "${common[@]}" --output-dir "$work/full" --resume 2> "$work/resume.err" || { cat "$work/resume.err"; fail "resume failed"; }
python3 "$here/../apps/compare_runs.py" "$work/straight" "$work/full" || fail "resumed run differs from an uninterrupted one"
echo "ok: a full disk mid-line leaves log.jsonl at its last complete line; --resume continues"
