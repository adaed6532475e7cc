#!/usr/bin/env bash
# A suite runner killed right after an experiment completed (summary.json "complete") but
# before it released the experiment's lock leaves DIR/.lock naming a dead process (issue 31
# item 5). Later reruns skip the complete experiment; they must also remove that stale lock.
# A lock some live process holds (flock(1) here) must be left alone, and the rerun still
# succeeds. The kill's result is planted: a .lock file, unlocked, naming a dead pid (flock
# locks die with their process; the file stays). A complete experiment whose settings in the
# suite file changed since is skipped with a warning naming them.
# Usage: suite_stale_lock.sh RUN_EXPERIMENT CONFIG WORKDIR
set -uo pipefail
bin=$1 config=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work"
cat > "$work/suite.json" <<JSON
{"name": "s", "experiments": [{"name": "e", "config": "$(realpath "$config")",
  "set": ["train.max_steps=3", "valid.every=0", "valid.test_at_end=false"]}]}
JSON
suite=(--suite "$work/suite.json" --output-root "$work/root" --no-progress)
dir=$work/root/s/e
"$bin" "${suite[@]}" 2> "$work/first.err" || { cat "$work/first.err"; fail "first suite run"; }
[ "$(json_field "$dir/summary.json" status)" = complete ] || fail "setup: the experiment did not complete"
[ ! -e "$dir/.lock" ] || fail "setup: a completed run left its lock"
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
echo "run-experiment pid $dead on host $(hostname) (started 2020-01-01T00:00:00Z)" > "$dir/.lock"
"$bin" "${suite[@]}" 2> "$work/rerun.err" || { cat "$work/rerun.err"; fail "suite rerun"; }
cat "$work/rerun.err"
grep -q "\[e\] complete, skipped" "$work/rerun.err" || fail "the rerun did not skip the complete experiment"
[ ! -e "$dir/.lock" ] || fail "the rerun left the stale lock $dir/.lock"
# A live holder: the rerun neither removes its lock nor fails.
echo "a live holder" > "$dir/.lock"
flock --no-fork "$dir/.lock" sleep 60 > /dev/null 2>&1 &  # sleep itself holds the lock
holder=$!
until ! flock -n "$dir/.lock" true 2>/dev/null; do sleep 0.02; done  # until it holds the lock
"$bin" "${suite[@]}" 2> "$work/held.err" || { cat "$work/held.err"; kill $holder; fail "suite rerun while a live process holds the lock"; }
[ -e "$dir/.lock" ] || { kill $holder; fail "the rerun removed a lock a live process holds"; }
kill $holder; wait $holder 2>/dev/null
rm -f "$dir/.lock"  # planted above
grep -q "warning" "$work/rerun.err" && fail "an unchanged suite warned about its settings"
# config.json as binaries before 2026-12-07 wrote float settings (widened to double:
# 0.10000000149011612) holds the same settings as the shortest form written now (0.1)
grep -q '"dropout": 0.1,' "$dir/config.json" || fail "config.json does not write the float dropout as 0.1"
python3 - "$dir/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["model"]["dropout"] = 0.10000000149011612
c["train"]["adam"]["beta2"] = 0.9800000190734863
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
"$bin" "${suite[@]}" 2> "$work/widened.err" || { cat "$work/widened.err"; fail "suite rerun on a widened config.json"; }
grep -q "warning" "$work/widened.err" && { cat "$work/widened.err"; fail "float settings written widened by an older binary were taken for other settings"; }
# The suite file changed since the experiment finished: it is still skipped (its results
# stay), with one warning naming the setting, both values and how to run it again.
sed -i 's/"train.max_steps=3"/"train.max_steps=3", "train.lr=0.0005"/' "$work/suite.json"
before=$(cat "$dir/summary.json" "$dir/config.json" | md5sum)
"$bin" "${suite[@]}" 2> "$work/changed.err" || { cat "$work/changed.err"; fail "suite rerun after a change"; }
cat "$work/changed.err"
grep -q "\[e\] warning: its results were made with other settings than the suite's now (/train/lr [0-9.e-]* -> 0.0005); pass --overwrite or remove $dir to run it again" \
  "$work/changed.err" || fail "no warning naming /train/lr after the suite changed"
[ "$(cat "$dir/summary.json" "$dir/config.json" | md5sum)" = "$before" ] || fail "the warning rerun touched the results"
echo "ok: a stale lock of a complete experiment is removed by the next suite run; a live one is kept; a changed setting is warned about"
