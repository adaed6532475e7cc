#!/usr/bin/env bash
# log.jsonl's and valid.jsonl's `epoch` is the epoch of the batch just used: the first batch of
# an epoch is in that epoch (the generator moves on lazily, when it hands out that batch), and
# summary.json's `epochs` counts the epochs begun. train.max_epochs = 1 stops after epoch 1's
# last batch, not one batch into epoch 2, also when a run resumes from a checkpoint taken at
# that batch (then it trains nothing), and max_epochs = 2 from there goes on into epoch 2.
# Usage: valid_epoch.sh RUN_EXPERIMENT CONFIG WORKDIR
set -euo pipefail
bin=$1 config=$2 work=$3
rm -rf "$work"
"$bin" --config "$config" --output-dir "$work" --no-progress --set train.log_every=1 \
  --set valid.every=1 --set train.max_steps=40 --set valid.max_sentences=2 \
  --set valid.test_at_end=false
python3 - "$work" <<'PY'
import json, sys
d = sys.argv[1]
log = {r["step"]: r["epoch"] for r in map(json.loads, open(f"{d}/log.jsonl"))}
valid = {r["step"]: r["epoch"] for r in map(json.loads, open(f"{d}/valid.jsonl"))}
assert len(set(log.values())) >= 3, f"want >= 2 epoch boundaries in 40 steps, got epochs {set(log.values())}"
bad = {s: (log[s], e) for s, e in valid.items() if log.get(s) != e}
assert not bad, f"step: (log.jsonl epoch, valid.jsonl epoch) differ at {bad}"
summary = json.load(open(f"{d}/summary.json"))
assert summary["epochs"] == max(log.values()), (summary["epochs"], max(log.values()))
print(f"epochs agree at {len(valid)} validations; boundaries after steps",
      [s for s in sorted(log) if log.get(s + 1, log[s]) != log[s]])
PY
# The same corpus, stopped by max_epochs = 1: exactly epoch 1's batches.
per_epoch=$(python3 -c "import json,sys; print(sum(1 for l in open('$work/log.jsonl') if json.loads(l)['epoch'] == 1))")
"$bin" --config "$config" --output-dir "$work-e1" --overwrite --no-progress --set train.log_every=1 \
  --set train.max_epochs=1 --set train.max_steps=1000 --set valid.test_at_end=false
python3 - "$work-e1" "$per_epoch" <<'PY'
import json, sys
d, per_epoch = sys.argv[1], int(sys.argv[2])
s = json.load(open(f"{d}/summary.json"))
assert (s["steps"], s["epochs"], s["ended_by"]) == (per_epoch, 1, "max_epochs"), \
    f"max_epochs 1: steps {s['steps']} (epoch 1 has {per_epoch} batches), epochs {s['epochs']}, ended_by {s['ended_by']}"
assert all(json.loads(l)["epoch"] == 1 for l in open(f"{d}/log.jsonl"))
print(f"max_epochs 1: {per_epoch} steps, epochs 1")
PY
# A checkpoint at epoch 1's last batch, resumed with max_epochs 1 (nothing to do) and then 2.
e1=(--config "$config" --no-progress --set train.log_every=1 --set valid.test_at_end=false
    --set train.checkpoint_every="$per_epoch" --output-dir "$work-resume")
"$bin" "${e1[@]}" --overwrite --set train.max_steps="$per_epoch"
"$bin" "${e1[@]}" --resume --set train.max_steps=1000 --set train.max_epochs=1
python3 - "$work-resume" "$per_epoch" 1 <<'PY'
import json, sys
d, per_epoch, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = json.load(open(f"{d}/summary.json"))
got = (s["steps"], s["epochs"], s["ended_by"])
assert got == (per_epoch * epochs, epochs, "max_epochs"), f"resumed at an epoch's end: {got}"
log = [json.loads(l) for l in open(f"{d}/log.jsonl")]
assert [r["epoch"] for r in log] == [1 + (r["step"] - 1) // per_epoch for r in log], \
    [(r["step"], r["epoch"]) for r in log if r["epoch"] != 1 + (r["step"] - 1) // per_epoch]
print(f"resumed at the end of epoch 1, max_epochs {epochs}: {got}")
PY
"$bin" "${e1[@]}" --resume --set train.max_steps=1000 --set train.max_epochs=2
python3 - "$work-resume" "$per_epoch" 2 <<'PY'
import json, sys
d, per_epoch, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = json.load(open(f"{d}/summary.json"))
got = (s["steps"], s["epochs"], s["ended_by"])
# epoch 2 may hold a batch more or fewer than epoch 1: its own count, from the log
log = [json.loads(l) for l in open(f"{d}/log.jsonl")]
second = sum(1 for r in log if r["epoch"] == 2)
assert got == (per_epoch + second, 2, "max_epochs") and second > 0, f"max_epochs 2: {got}"
assert [r["epoch"] for r in log] == [1] * per_epoch + [2] * second
print(f"then max_epochs 2: {got}")
PY
