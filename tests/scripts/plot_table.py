"""Shared by the plot.py and claims.py checks: make the fixtures, run scripts/plot.py, read back
its summary.md table."""
import os
import shutil
import subprocess
import sys


def make_fixtures(repo, work):
    """A fresh WORK/results holding the synthetic runs of fixtures/make_plot_fixtures.py."""
    shutil.rmtree(work, ignore_errors=True)
    fixtures = os.path.join(work, "results")
    subprocess.run([sys.executable, os.path.join(repo, "tests/scripts/fixtures/make_plot_fixtures.py"),
                    fixtures], check=True)
    return fixtures


def run_plot(repo, args):
    """plot.py under this interpreter (the one ctest chose, with matplotlib)."""
    return subprocess.run([sys.executable, os.path.join(repo, "scripts", "plot.py")] + args,
                          capture_output=True, text=True, timeout=120)


def read_table(path):
    """(whole text, {experiment: {column: cell}}) of the first markdown table in path."""
    if not os.path.isfile(path):
        return "", {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|")]
    if len(rows) < 2:
        return text, {}
    head = rows[0]
    return text, {r[0]: dict(zip(head, r)) for r in rows[2:]}
