#!/usr/bin/env python3
"""The reproduction suite's update, timed: a new run-experiment against a baseline binary.

Each round runs every config once with each binary (alternating, one process at a time), for
--steps updates with validation and checkpoints off, and times updates from the first logged
step to the last from the log's wall_s (so start-up, SentencePiece and data loading are not
counted). It prints a table of seconds per update (median over rounds) and the speed-up, and
whether every run of both binaries logged bit-identical train losses and gradient norms (every
10th step; they must be: same config, seed and kernels).

  bench/suite_update.py --new build/apps/run-experiment/run-experiment \
      --base /path/to/old/run-experiment --base-env OPENBLAS_CORETYPE=SkylakeX \
      [--steps 110] [--rounds 3] [CONFIG ...]

Default configs: the v2 suite models (configs/repro/{transformer,rnn}-model.json: 4 simulated
nodes, 1 BLAS thread per node), which a binary as old as 17d1b53 still reads.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run_once(binary, env_extra, config, steps, out_dir):
    env = dict(os.environ)
    for kv in env_extra:
        k, _, v = kv.partition("=")
        env[k] = v
    cmd = [binary, "--config", config, "--output-dir", out_dir, "--no-progress",
           "--set", f"train.max_steps={steps}", "--set", "valid.every=0",
           "--set", "valid.test_at_end=false", "--set", "train.checkpoint_every=0",
           "--set", "train.log_every=10"]
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.exit(f"suite_update: {binary} failed on {config}:\n{proc.stdout[-2000:]}")
    rows = []
    with open(os.path.join(out_dir, "log.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if "train_loss" in r and "wall_s" in r:
                rows.append(r)
    if len(rows) < 2:
        sys.exit(f"suite_update: {out_dir}/log.jsonl: fewer than 2 logged steps")
    per_update = (rows[-1]["wall_s"] - rows[0]["wall_s"]) / (rows[-1]["step"] - rows[0]["step"])
    trace = [(r["step"], r["train_loss"], r.get("grad_norm")) for r in rows]
    return per_update, trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--new", default=os.path.join(REPO, "build/apps/run-experiment/run-experiment"))
    ap.add_argument("--base", required=True, help="baseline run-experiment binary")
    ap.add_argument("--base-env", action="append", default=[],
                    help="VAR=VALUE for the baseline only (e.g. OPENBLAS_CORETYPE=SkylakeX)")
    ap.add_argument("--new-env", action="append", default=[])
    ap.add_argument("--steps", type=int, default=110)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("configs", nargs="*", default=["configs/repro/transformer-model.json",
                                                   "configs/repro/rnn-model.json"])
    a = ap.parse_args()
    for b in (a.new, a.base):
        if not os.access(b, os.X_OK):
            ap.exit(2, f"suite_update: {b}: not an executable\n")
    for kv in a.base_env + a.new_env:
        if "=" not in kv or not kv.split("=", 1)[0]:
            ap.exit(2, f"suite_update: --base-env / --new-env {kv!r}: want VAR=VALUE\n")
    if a.rounds < 1 or a.steps < 20:
        ap.exit(2, f"suite_update: want --rounds >= 1 and --steps >= 20 (two logged steps), got "
                   f"{a.rounds} and {a.steps}\n")
    for cfg in a.configs:
        if not os.path.isfile(os.path.join(REPO, cfg)):
            ap.exit(2, f"suite_update: {cfg}: no such config (paths are relative to {REPO})\n")
    times = {}
    traces = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for cfg in a.configs:
                for side, binary, env in (("base", a.base, a.base_env), ("new", a.new, a.new_env)):
                    d = os.path.join(tmp, f"{side}-{r}-{os.path.basename(cfg)}")
                    t, trace = run_once(binary, env, cfg, a.steps, d)
                    times.setdefault((cfg, side), []).append(t)
                    traces.setdefault((cfg, side), []).append(trace)
                    print(f"# round {r + 1} {os.path.basename(cfg)} {side}: {t * 1e3:.1f} ms/update",
                          file=sys.stderr)
    print(f"| config | base ms/update | new ms/update | speed-up | losses bit-identical |")
    print(f"|---|---:|---:|---:|---|")
    for cfg in a.configs:
        b = statistics.median(times[(cfg, "base")])
        n = statistics.median(times[(cfg, "new")])
        # every round of both binaries must log the same losses and gradient norms
        runs = traces[(cfg, "base")] + traces[(cfg, "new")]
        same = all(t == runs[0] for t in runs)
        print(f"| {os.path.basename(cfg)} | {b * 1e3:.1f} | {n * 1e3:.1f} | {b / n:.2f}x | "
              f"{'yes' if same else 'NO'} ({len(runs[0])} logged steps x {len(runs)} runs) |")
    print(f"\nbase: {a.base} {' '.join(a.base_env)}; new: {a.new} {' '.join(a.new_env)}; "
          f"{a.steps} updates, median of {a.rounds} rounds, updates timed from the first logged "
          f"step (log wall_s)")


if __name__ == "__main__":
    main()
