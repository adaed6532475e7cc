#!/usr/bin/env python3
"""Compares the train_loss curves (log.jsonl) of two runs of one config: the largest relative
difference per logged step. Exit 1 when it exceeds --tol (GPU vs CPU: float32 kernels in
another order; the difference grows with steps, so --tol is loose) or the steps differ.
  compare_logs.py CPU_DIR OTHER_DIR [--tol 0.02]
Prints one line: max_rel=... at step ..., final losses."""
import json, os, sys


def curve(d):
    out = {}
    with open(os.path.join(d, "log.jsonl")) as f:
        for line in f:
            if line.strip():
                j = json.loads(line)
                if "train_loss" in j:
                    out[j["step"]] = j["train_loss"]
    return out


def main(argv):
    tol = 0.02
    if "--tol" in argv:
        i = argv.index("--tol")
        tol = float(argv[i + 1])
        del argv[i:i + 2]
    a, b = curve(argv[0]), curve(argv[1])
    if not a or sorted(a) != sorted(b):
        print(f"steps differ: {sorted(a)} vs {sorted(b)}")
        return 1
    worst, at = 0.0, None
    for s in sorted(a):
        r = abs(a[s] - b[s]) / max(abs(a[s]), 1e-12)
        if r >= worst:
            worst, at = r, s
    last = max(a)
    print(f"max_rel={worst:.2e} at step {at}; final loss {a[last]:.5f} vs {b[last]:.5f} (step {last})")
    return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
