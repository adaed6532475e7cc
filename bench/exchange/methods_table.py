#!/usr/bin/env python3
"""What one update costs a node with each distributed method of the reproduction-v3 suite, on
this CPU: runs bench_exchange (thread CPU time, synthetic batches of the suite's shapes) for
every method on both models and prints a markdown table.

    python3 bench/exchange/methods_table.py [--bin build/bench/exchange/bench_exchange]
                                            [--steps 20] [--model transformer|rnn]

The methods' settings are the suite's (configs/repro-v3/README.md): sparse rho 0.99, K = 500,
PowerSGD rank 4, DiLoCo H 500, DeMo chunk 64 / top 32. Thread CPU time is what the virtual
clock's compute and (from 2026-12-07) its measured selection read, so other processes on the
machine slow these numbers little; the exchange column includes the sums inside the
collectives (rank-order additions), not the waiting."""
import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
METHODS = [
    ("dense", []),
    ("sparse-only", ["distributed.method=sparse"]),
    ("sparse+partial K500", ["distributed.method=sparse", "distributed.combiner=partial",
                             "distributed.average_every=500"]),
    ("PowerSGD r4", ["distributed.method=powersgd", "distributed.powersgd.rank=4"]),
    ("DiLoCo H500", ["distributed.method=diloco", "distributed.average_every=500"]),
    ("DeMo", ["distributed.method=demo", "train.optimizer=sign"]),
]


def measure(binary, model, sets, steps):
    cmd = [binary, "--config", os.path.join(REPO, "configs", "repro-v3", f"{model}-model.json"),
           "--steps", str(steps)]
    for s in ["distributed.method=dense"] + sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"methods_table: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=os.path.join(REPO, "build", "bench", "exchange", "bench_exchange"))
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--model", choices=("transformer", "rnn"), action="append")
    a = p.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"methods_table: {a.bin}: not an executable (build it: bash scripts/build.sh)")
    print("| model | method | P | forward+backward ms | exchange ms | update ms | exchange / fwd+bwd "
          "| bytes sent per update |")
    print("|---|---|---|---|---|---|---|---|")
    for model in a.model or ["transformer", "rnn"]:
        for name, sets in METHODS:
            j = measure(a.bin, model, sets, a.steps)
            print(f"| {model} | {name} | {j['P']} | {j['fwd_bwd_ms']:.2f} | {j['exchange_ms']:.2f} | "
                  f"{j['update_ms']:.2f} | {j['exchange_ms'] / j['fwd_bwd_ms']:.0%} | "
                  f"{j['bytes_sent_per_step']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
