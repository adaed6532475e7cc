#!/usr/bin/env python3
"""Checks that two results directories of DIFFERENT methods trained identically: every node's
final parameters bit for bit (the "params" array of the last checkpoint), the log lines and
validations once measured times, the method's name and the fields only one of the methods
writes are removed, and the test BLEU. For a method that must reduce to another one exactly
(DiLoCo with outer lr 1 and no momentum = fedavg).
Usage: same_training.py DIR_A DIR_B"""
import json
import os
import struct
import sys

from compare_runs import jsonl, latest

ONLY_ONE_METHOD = {"method", "outer_delta_norm"}


def drop(x):
    if isinstance(x, dict):
        return {k: drop(v) for k, v in x.items() if k not in ONLY_ONE_METHOD}
    return x


def params(path):
    """The "params" array of a checkpoint file (lib/train/checkpoint_file.h), as bytes."""
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"SLCKPT1\n"), path
    hlen = struct.unpack("<Q", data[8:16])[0]
    header = json.loads(data[16:16 + hlen])
    pos = 16 + hlen
    for a in header["arrays"]:
        n = 4 * a["count"]
        if a["name"] == "params":
            return data[pos:pos + n]
        pos += n
    sys.exit(f"{path}: no params array")


def main(a, b):
    ca, cb = latest(a), latest(b)
    nodes = sorted(n for n in os.listdir(ca) if n.startswith("node-"))
    if not nodes or nodes != sorted(n for n in os.listdir(cb) if n.startswith("node-")):
        sys.exit(f"different node files in {ca} and {cb}")
    for n in nodes:
        if params(os.path.join(ca, n)) != params(os.path.join(cb, n)):
            sys.exit(f"{n}: the parameters differ")
    lines = {}
    for name in ("log.jsonl", "valid.jsonl"):
        la = [drop(x) for x in jsonl(os.path.join(a, name))]
        lb = [drop(x) for x in jsonl(os.path.join(b, name))]
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                sys.exit(f"{name} line {i + 1} differs:\n{x}\n{y}")
        if len(la) != len(lb):
            sys.exit(f"{name}: {len(la)} vs {len(lb)} lines")
        lines[name] = len(la)
    sa, sb = (json.load(open(os.path.join(d, "summary.json"))) for d in (a, b))
    if sa.get("test_bleu") != sb.get("test_bleu"):
        sys.exit(f"test BLEU {sa.get('test_bleu')} vs {sb.get('test_bleu')}")
    print(f"same training: {len(nodes)} nodes' parameters bit for bit, "
          f"{lines['log.jsonl']} log and {lines['valid.jsonl']} validation lines, "
          f"test BLEU {sa.get('test_bleu')}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
