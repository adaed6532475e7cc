#!/usr/bin/env python3
"""Training loss per target token averaged over each 20-step window (the console log's
"step N/M epoch E loss X" lines) at matched steps, for the issue-12 comparisons. Every run
sees the same batches in the same order (seed 1), so columns are paired comparisons.

    python3 results/single-node/learning_table.py CONSOLE.log [CONSOLE.log ...]
"""
import os, re, sys

STEPS = [20, 40, 60, 80, 100, 120]
LINE = re.compile(r"step (\d+)/\d+ epoch \d+ loss ([0-9.]+) lr ([0-9.e-]+) (\d+) tok/s")

print("| run | " + " | ".join(f"{s}" for s in STEPS) + " | tok/s |")
print("|---|" + "---|" * (len(STEPS) + 1))
for path in sys.argv[1:]:
    loss, speed = {}, []
    for line in open(path):
        m = LINE.search(line)
        if m:
            loss[int(m.group(1))] = float(m.group(2))
            speed.append(int(m.group(4)))
    cells = [f"{loss[s]:.3f}" if s in loss else "-" for s in STEPS]
    rate = sorted(speed)[len(speed) // 2] if speed else "-"
    print(f"| {os.path.basename(path)} | " + " | ".join(cells) + f" | {rate} |")
