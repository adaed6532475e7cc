#!/usr/bin/env python3
"""configs/paper: the settings PAPER.md and configs/paper/README.md promise, and a budget of
equal target tokens for 1, 2 and 4 nodes (nodes x max_steps x batch_tokens the same for every
run of a model; validation at the same token positions). Then submit-suite.sh --dry-run with
SL_GPUS=1 must plan every job with one GPU per node. Usage: check_paper_configs.py REPO"""
import json, os, subprocess, sys

repo = sys.argv[1]
cdir = os.path.join(repo, "configs/paper")
bad = []


def expect(cond, what):
    if not cond:
        bad.append(what)


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load(name):
    d = json.load(open(os.path.join(cdir, name)))
    if "extends" in d:
        d = merge(load(d.pop("extends")), d)
    return d


def setkey(d, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    try:
        value = json.loads(value)
    except ValueError:
        pass
    d[keys[-1]] = value


suite = json.load(open(os.path.join(cdir, "suite.json")))
budget, positions = {}, {}
for e in suite["experiments"]:
    c = load(e["config"])
    for s in e.get("set", []):
        k, v = s.split("=", 1)
        setkey(c, k, v)
    n, model = e["nodes"], c["model"]["type"]
    expect(c["device"] == "cuda", f"{e['name']}: device {c['device']}")
    d = c["distributed"]
    expect(d["drop_ratio"] == 0.99 and d["average_every"] == 500 and d["drop_warmup_steps"] == 1000,
           f"{e['name']}: drop ratio / averaging / warm-up")
    budget.setdefault(model, set()).add(n * c["train"]["max_steps"] * c["data"]["batch_tokens"])
    positions.setdefault(model, set()).add(n * c["valid"]["every"])
    if model == "transformer":
        m = c["model"]
        expect((m["d_model"], m["heads"], m["ff"], m["encoder_layers"], m["decoder_layers"],
                m["label_smoothing"]) == (512, 8, 2048, 6, 6, 0.1), f"{e['name']}: not Transformer-base")
    else:
        m = c["model"]
        expect(m["enc_layers"] >= 2 and m["label_smoothing"] == 0.0 and m["enc_dim"] == 1024
               and m["dec_dim"] == 1024, f"{e['name']}: not the deep RNN of configs/paper/README.md")
for model in budget:
    expect(len(budget[model]) == 1, f"{model}: token budgets differ across runs: {sorted(budget[model])}")
    expect(len(positions[model]) == 1, f"{model}: validation token positions differ: {positions[model]}")
expect(sorted({e["nodes"] for e in suite["experiments"]}) == [1, 2, 4], "1, 2 and 4 nodes")
expect(len(suite["experiments"]) == 26, f"{len(suite['experiments'])} experiments, want 26")

env = dict(os.environ, SL_GPUS="1", SL_SBATCH_ARGS="--time=48:00:00")
r = subprocess.run(["bash", os.path.join(repo, "scripts/slurm/submit-suite.sh"),
                    os.path.join(cdir, "suite.json"), "--partition", "gpu", "--dry-run"],
                   capture_output=True, text=True, env=env)
expect(r.returncode == 0, f"submit-suite --dry-run failed: {r.stderr[-500:]}")
out = r.stdout + r.stderr
expect(out.count("--gres=gpu:1") >= len(suite["experiments"]), "not every job asks --gres=gpu:1")
expect("--time=48:00:00" in out, "SL_SBATCH_ARGS --time not passed on")

for b in bad:
    print("FAIL:", b)
print(f"configs/paper: {len(suite['experiments'])} runs, budgets {budget}, {'ok' if not bad else 'BAD'}")
sys.exit(1 if bad else 0)
