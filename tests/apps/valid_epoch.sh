#!/usr/bin/env bash
# log.jsonl's and valid.jsonl's `epoch` is the epoch of the batch just used: the first batch of
# an epoch is in that epoch (the generator moves on lazily, when it hands out that batch), and
# summary.json's `epochs` counts the epochs begun. train.max_epochs = 1 stops after epoch 1's
# last batch, not one batch into epoch 2.
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
