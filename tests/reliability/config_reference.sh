#!/usr/bin/env bash
# docs/CONFIG.md must equal `run-experiment --config-reference` (generated from the schema
# the validator records), which must document every key a resolved config has.
# Regenerate with: build/apps/run-experiment/run-experiment --config-reference > docs/CONFIG.md
# Usage: config_reference.sh RUN_EXPERIMENT REPO
set -euo pipefail
bin=$1 repo=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$bin" --config-reference > "$out" || fail "--config-reference failed"
diff -u "$repo/docs/CONFIG.md" "$out" ||
  fail "docs/CONFIG.md differs from run-experiment --config-reference (regenerate it: see this script)"
# Every key of a resolved config (all defaults filled in) is in the reference.
for cfg in configs/tiny/dense.json configs/tiny/sparse-partial.json; do
  "$bin" --config "$repo/$cfg" --dry-run --output-dir /nonexistent-dry-run |
    python3 -c '
import json, sys
ref = open(sys.argv[1]).read()
def walk(j, p):
    for k, v in j.items():
        key = p + k
        if "`" + key + "`" not in ref:
            sys.exit("not in the reference: " + key)
        if isinstance(v, dict) and key != "distributed.network":
            walk(v, key + ".")
walk(json.load(sys.stdin), "")
' "$out" || fail "$cfg: a resolved key is missing from the reference"
done
grep -q -- "--config-reference" <("$bin" --help) || fail "--help does not mention --config-reference"
echo "ok: docs/CONFIG.md is current and complete"
