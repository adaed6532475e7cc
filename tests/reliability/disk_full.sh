#!/usr/bin/env bash
# Disk full while writing checkpoints and results: the results directory is on a small tmpfs
# that is filled up after a first run; --resume must fail with an error and leave the previous
# checkpoint, pointer and summary intact (config.json is rewritten by any resume); once space is free again, --resume completes and
# equals an uninterrupted run. Needs root (mount); otherwise exits 77 (skipped).
# Usage: disk_full.sh RUN_EXPERIMENT CONFIG WORKDIR
set -uo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work/small"
if ! mount -t tmpfs -o size=64m tmpfs "$work/small" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN)"
  exit 77
fi
trap 'umount "$work/small"' EXIT
common=(--config "$config" --no-progress --set train.checkpoint_every=5 --set train.log_every=1 --set valid.every=10
        --set valid.test_at_end=false)
"$bin" "${common[@]}" --set train.max_steps=20 --output-dir "$work/straight" || fail "straight run"
out=$work/small/run
"$bin" "${common[@]}" --set train.max_steps=10 --output-dir "$out" || fail "first run"
files=$(cd "$out" && find checkpoints summary.json -type f | sort)
digest() { (cd "$out" && sha256sum $files); }
before=$(digest)
# Leave room for the log lines but not for the next checkpoint (half of one).
ckpt=$(du -sb "$out/checkpoints/$(cat "$out/checkpoints/latest")" | cut -f1)
avail=$(df --output=avail -B1 "$work/small" | tail -n 1)
dd if=/dev/zero of="$work/small/filler" bs=4096 count=$(( (avail - ckpt / 2) / 4096 )) 2>/dev/null
df -h "$work/small" | tail -n 1
rc=0
"$bin" "${common[@]}" --set train.max_steps=20 --output-dir "$out" --resume 2> "$work/full.err" || rc=$?
cat "$work/full.err" >&2
echo "resume on a full disk: exit code $rc"
[ $rc -ne 0 ] || fail "the run succeeded on a full disk"
grep -qi "no space left" "$work/full.err" || fail "the error does not say the disk is full"
[ "$(digest)" = "$before" ] || { diff <(echo "$before") <(digest); fail "previous files changed"; }
ls "$out/checkpoints"
rm -f "$work/small/filler"
"$bin" "${common[@]}" --set train.max_steps=20 --output-dir "$out" --resume || fail "resume after freeing space"
python3 "$here/../apps/compare_runs.py" "$work/straight" "$out" || fail "resumed run differs"
