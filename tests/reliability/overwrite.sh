#!/usr/bin/env bash
# --overwrite on a directory holding a finished run (another method, more steps, a test
# set, checkpoints) must give the same files as a run into an empty directory: the same set
# of file names, and log.jsonl / valid.jsonl / checkpoints equal (tests/apps/compare_runs.py).
# Usage: overwrite.sh RUN_EXPERIMENT CONFIG WORKDIR
set -euo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.checkpoint_every=5 --set train.log_every=5
        --set valid.every=5)
"$bin" "${common[@]}" --set train.max_steps=20 --set distributed.method=sparse --output-dir "$work/dir" 2> /dev/null
touch "$work/dir/log.jsonl.tmp.12345"
"$bin" "${common[@]}" --set train.max_steps=15 --set valid.test_at_end=false --output-dir "$work/dir" --overwrite
"$bin" "${common[@]}" --set train.max_steps=15 --set valid.test_at_end=false --output-dir "$work/empty"
list() { (cd "$1" && find . -type f | sort); }
diff <(list "$work/empty") <(list "$work/dir") || fail "the overwritten directory holds other files than a fresh run's"
python3 "$here/../apps/compare_runs.py" "$work/empty" "$work/dir"
python3 - "$work/dir" <<'PY' || fail "summary.json or config.json is not the new run's"
import json, sys
d = sys.argv[1]
assert json.load(open(d + "/summary.json"))["method"] == "dense"
assert json.load(open(d + "/config.json"))["train"]["max_steps"] == 15
PY
echo "ok: --overwrite equals a run into an empty directory"
