#!/usr/bin/env bash
# A run resumed from a checkpoint of comm model 1 (binaries that left the size exchange of the
# sparse all-gather out of the modeled time; lib/distributed/comm_accounting.h) must end with
# the same modeled communication as a run that was comm model 2 from its first step.
# The copy's run.json is turned into version 1 by hand: no `comm_model` key and, for each
# network, STOP * (the size exchange's modeled seconds) taken out of modeled_time_s.
# Compute time is measured (it differs between runs), so the check compares the modeled
# times' differences between networks, which are communication only.
# Usage: comm_model_upgrade.sh RUN_EXPERIMENT CONFIG STOP WORKDIR
set -euo pipefail
bin=$1 config=$2 stop=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
common=(--config "$config" --no-progress --set train.checkpoint_every="$stop"
        --set valid.every=0 --set valid.test_at_end=false)
"$bin" "${common[@]}" --output-dir "$work/new" --set train.max_steps="$stop"
cp -r "$work/new" "$work/old"
python3 - "$work/old" "$stop" <<'EOF'
import json, sys
d, stop = sys.argv[1], int(sys.argv[2])
with open(f"{d}/config.json") as f:
    cfg = json.load(f)
N = cfg["cluster"]["nodes"]
nets = {"1gbe": (1.0, 50.0), "10gbe": (10.0, 20.0), "ib100": (100.0, 2.0)}
nets["configured"] = nets[cfg["distributed"]["network"]]
with open(f"{d}/checkpoints/latest") as f:
    path = f"{d}/checkpoints/{f.read().strip()}/run.json"
with open(path) as f:
    run = json.load(f)
assert run.pop("comm_model") == 2, "a new checkpoint should say comm_model 2"
for k, (gbps, lat_us) in nets.items():
    run["modeled_time_s"][k] -= stop * (N - 1) * (8 * 8 / (gbps * 1e9) + lat_us * 1e-6)
with open(path, "w") as f:
    json.dump(run, f)
EOF
"$bin" "${common[@]}" --output-dir "$work/new" --resume
"$bin" "${common[@]}" --output-dir "$work/old" --resume 2> "$work/old.stderr"
grep -q "comm model 1" "$work/old.stderr" || { echo "no upgrade message on stderr"; exit 1; }
python3 - "$work/new" "$work/old" "$stop" <<'EOF'
import json, sys
new, old, stop = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rows(d):
    with open(f"{d}/log.jsonl") as f:
        return [json.loads(l) for l in f if l.strip()]
a, b = rows(new), rows(old)
assert a[-1]["step"] == b[-1]["step"] > stop, (a[-1]["step"], b[-1]["step"])
assert all(r.get("comm_model") == 2 for r in a + b), "a log line without comm_model 2"
def comm_diff(r, k):  # modeled time on k minus on ib100: communication only
    return r["modeled_time_s"][k] - r["modeled_time_s"]["ib100"]
for k in ("1gbe", "10gbe", "configured"):
    x, y = comm_diff(a[-1], k), comm_diff(b[-1], k)
    assert abs(x - y) <= 1e-9 * max(1.0, abs(x)), f"{k}: {x} (comm model 2 throughout) vs {y} (upgraded)"
    print(f"{k} - ib100 at step {a[-1]['step']}: {x:.9f} s, upgraded run {y:.9f} s")
with open(f"{new}/summary.json") as f:
    assert json.load(f)["comm_model"] == 2
EOF
