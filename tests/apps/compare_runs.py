#!/usr/bin/env python3
"""Compares two results directories of the same experiment: the final checkpoint files
must be byte-identical, and log.jsonl / valid.jsonl equal once measured times are removed.
With --rtol R (a change that only reorders float sums, such as a fused kernel): checkpoints
are not compared, and every number of the logs must agree to within R relative (R absolute
near 0); BLEU-like integers and strings must still be equal.
Usage: compare_runs.py [--rtol R] DIR_A DIR_B"""
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


# best-model.ckpt's header may carry what a newer binary adds beside the parameters (the
# embedded SentencePiece model, a format version): those keys are not results.
BEST_MODEL_EXTRA_META = ("vocab_model", "best_model_version")
CHECKPOINT_MAGIC = b"SLCKPT1\n"


def best_model_content(path):
    """(meta without BEST_MODEL_EXTRA_META, array names and counts, the arrays' raw bytes) of a
    checkpoint file (lib/train/checkpoint_file.cpp: magic, u64 header length, JSON header,
    float arrays, u64 checksum, end marker)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = len(CHECKPOINT_MAGIC)
    if not data.startswith(CHECKPOINT_MAGIC):
        sys.exit(f"{path}: not a sparselocal checkpoint")
    hlen = int.from_bytes(data[magic:magic + 8], "little")
    header = json.loads(data[magic + 8:magic + 8 + hlen])
    meta = {k: v for k, v in header["meta"].items() if k not in BEST_MODEL_EXTRA_META} \
        if isinstance(header.get("meta"), dict) else header.get("meta")
    n = sum(a["count"] for a in header["arrays"]) * 4
    body = data[magic + 8 + hlen:magic + 8 + hlen + n]
    return meta, header["arrays"], body


def same_checkpoint(pa, pb):
    with open(pa, "rb") as fa, open(pb, "rb") as fb:
        if fa.read() == fb.read():
            return True
    if os.path.basename(pa) != "best-model.ckpt":
        return False
    return best_model_content(pa) == best_model_content(pb)


def close(x, y, rtol):
    """Same structure; floats within rtol (of the larger magnitude, or absolute below 1)."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(close(x[k], y[k], rtol) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(close(u, v, rtol) for u, v in zip(x, y))
    if isinstance(x, float) or isinstance(y, float):
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return False
        return abs(x - y) <= rtol * max(1.0, abs(x), abs(y))
    return x == y


def main_tolerant(a, b, rtol):
    worst = 0.0
    for name in ("log.jsonl", "valid.jsonl"):
        la, lb = jsonl(os.path.join(a, name)), jsonl(os.path.join(b, name))
        if len(la) != len(lb):
            sys.exit(f"{name}: {len(la)} vs {len(lb)} lines")
        for i, (x, y) in enumerate(zip(la, lb)):
            if not close(x, y, rtol):
                sys.exit(f"{name} line {i + 1} differs beyond rtol {rtol}:\n{x}\n{y}")
            for k in ("train_loss", "grad_norm", "dev_ce", "ce", "loss"):
                if isinstance(x.get(k), float) and isinstance(y.get(k), float):
                    worst = max(worst, abs(x[k] - y[k]) / max(1.0, abs(x[k])))
    print(f"equal to rtol {rtol}: log.jsonl and valid.jsonl (largest relative loss difference "
          f"{worst:.2e})")


def main(a, b):
    ca, cb = latest(a), latest(b)
    if os.path.basename(ca) != os.path.basename(cb):
        sys.exit(f"different final checkpoints: {ca} vs {cb}")
    nodes = sorted(n for n in os.listdir(ca) if n.endswith(".ckpt"))
    if not nodes or nodes != sorted(n for n in os.listdir(cb) if n.endswith(".ckpt")):
        sys.exit(f"different node files: {os.listdir(ca)} vs {os.listdir(cb)}")
    for n in nodes:
        if not same_checkpoint(os.path.join(ca, n), os.path.join(cb, n)):
            sys.exit(f"{n} differs between {ca} and {cb}")
    best = [os.path.join(d, "best-model.ckpt") for d in (a, b)]
    if any(os.path.exists(p) for p in best):
        if not all(os.path.exists(p) for p in best):
            sys.exit(f"best-model.ckpt in only one of {a}, {b}")
        if not same_checkpoint(best[0], best[1]):
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
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--rtol":
        main_tolerant(args[2], args[3], float(args[1]))
    elif len(args) == 2:
        main(args[0], args[1])
    else:
        sys.exit(__doc__)
