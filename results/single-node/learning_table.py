#!/usr/bin/env python3
"""Train loss (per target token, one batch; every run sees the same batches) at matched steps,
and dev CE/BLEU where a run validated, for the issue-12 ablations.

    python3 results/single-node/learning_table.py RUN_DIR [RUN_DIR ...]
"""
import json, os, sys

STEPS = [20, 40, 60, 80, 100, 120]


def rows(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            j = json.loads(line)
            out[j["step"]] = j
    return out


print("| run | " + " | ".join(f"loss@{s}" for s in STEPS) + " | mean(80,100) | dev CE / BLEU |")
print("|---|" + "---|" * (len(STEPS) + 2))
for d in sys.argv[1:]:
    log, valid = rows(os.path.join(d, "log.jsonl")), rows(os.path.join(d, "valid.jsonl"))
    cells = [f"{log[s]['train_loss']:.3f}" if s in log else "-" for s in STEPS]
    window = [log[s]["train_loss"] for s in (80, 100) if s in log]
    mean = f"{sum(window) / len(window):.3f}" if len(window) == 2 else "-"
    dev = ", ".join(f"{s}: {v.get('ce', v.get('dev_ce', float('nan'))):.2f} / {v['bleu']:.2f}"
                    if isinstance(v.get("bleu"), (int, float)) else f"{s}: {v}" for s, v in sorted(valid.items()))
    print(f"| {os.path.basename(d.rstrip('/'))} | " + " | ".join(cells) + f" | {mean} | {dev or '-'} |")
