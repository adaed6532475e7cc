#!/usr/bin/env python3
"""Compares two results directories of the same experiment: the final checkpoint files
must be byte-identical, and log.jsonl / valid.jsonl equal once measured times are removed.
Usage: compare_runs.py DIR_A DIR_B"""
import json
import os
import sys


def untimed(x):
    # Measured seconds (and the modeled times built from them) differ from run to run.
    if isinstance(x, dict):
        return {k: untimed(v) for k, v in x.items()
                if not (k.endswith("_s") or k.startswith("modeled"))}
    if isinstance(x, list):
        return [untimed(v) for v in x]
    return x


def jsonl(path):
    with open(path) as f:
        return [untimed(json.loads(line)) for line in f if line.strip()]


def latest(d):
    with open(os.path.join(d, "checkpoints", "latest")) as f:
        return os.path.join(d, "checkpoints", f.read().strip())


def main(a, b):
    ca, cb = latest(a), latest(b)
    if os.path.basename(ca) != os.path.basename(cb):
        sys.exit(f"different final checkpoints: {ca} vs {cb}")
    nodes = sorted(n for n in os.listdir(ca) if n.endswith(".ckpt"))
    if not nodes or nodes != sorted(n for n in os.listdir(cb) if n.endswith(".ckpt")):
        sys.exit(f"different node files: {os.listdir(ca)} vs {os.listdir(cb)}")
    for n in nodes:
        with open(os.path.join(ca, n), "rb") as fa, open(os.path.join(cb, n), "rb") as fb:
            if fa.read() != fb.read():
                sys.exit(f"{n} differs between {ca} and {cb}")
    best = [os.path.join(d, "best-model.ckpt") for d in (a, b)]
    if any(os.path.exists(p) for p in best):
        if not all(os.path.exists(p) for p in best):
            sys.exit(f"best-model.ckpt in only one of {a}, {b}")
        with open(best[0], "rb") as fa, open(best[1], "rb") as fb:
            if fa.read() != fb.read():
                sys.exit(f"best-model.ckpt differs between {a} and {b}")
    for name in ("log.jsonl", "valid.jsonl"):
        la, lb = jsonl(os.path.join(a, name)), jsonl(os.path.join(b, name))
        if la != lb:
            for i, (x, y) in enumerate(zip(la, lb)):
                if x != y:
                    sys.exit(f"{name} line {i + 1} differs:\n{x}\n{y}")
            sys.exit(f"{name}: {len(la)} vs {len(lb)} lines")
    print(f"identical: {len(nodes)} node checkpoints of {os.path.basename(ca)}, logs equal")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
