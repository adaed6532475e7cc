"""The numbers the stand-in run-experiment (test_repro_v3_driver.py) and the stand-in sbatch
(test_repro_v3_slurm.py) give an experiment of the v3 driver: its final dev CE and test BLEU
as a known function of its name, lr and updates (the expected decisions are worked out from
these in test_repro_v3_driver.py's docstring)."""
import math


def result(name, lr, steps):
    """(final dev CE, test BLEU or None for an lr-sweep run)."""
    if "-lr-" in name:   # phase 1's sweep
        best = 0.008 if "-lr-4node-sparse-lr" in name else 0.001 if "1node" in name else 0.004
        return 2 + 0.1 * math.log2(lr / best) ** 2, None
    best = 0.0005 if "equal-tokens" in name else 0.002
    return 2 + 400 / steps + 0.01 * math.log2(lr / best) ** 2, 30 - 10000 / steps
