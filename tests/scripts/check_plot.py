#!/usr/bin/env python3
"""ctest plot_py_fixtures: scripts/plot.py on synthetic results must draw the figures and a
summary table whose cells equal the values worked out by hand from the fixture design
(tests/scripts/fixtures/make_plot_fixtures.py).

Usage: check_plot.py REPO_ROOT WORK_DIR      (exit 0 pass, 1 fail, 77 skip: no matplotlib)
"""
import os
import sys

from plot_table import make_fixtures, read_table, run_plot

# Default target: 90% of the best BLEU of the model type (transformer 24 -> 21.6, rnn 14 -> 12.6).
# time to target = first validation >= target; wall/modeled clocks are step * rate.
EXPECTED = {  # experiment: {column: cell}
    "paper-small/tf-1node-dense": {
        "nodes": "1", "method": "dense", "steps": "2000", "best dev BLEU (step)": "22.00 (2000)",
        "test BLEU": "21.00", "time to target, wall": "200.0 s",
        "time to target, modeled (10gbe)": "200.0 s", "bytes/step": "0 B",
        "speed-up vs 1-node": "1.00x", "speed-up vs 4-node dense": "0.80x", "status": "complete"},
    "paper-small/tf-4node-dense": {
        "time to target, wall": "500.0 s", "time to target, modeled (10gbe)": "160.0 s",
        "bytes/step": "6.00 MB", "speed-up vs 1-node": "1.25x",
        "speed-up vs 4-node dense": "1.00x"},
    "paper-small/tf-4node-sparse": {
        "best dev BLEU (step)": "10.00 (1000)", "time to target, wall": "not reached",
        "time to target, modeled (10gbe)": "not reached", "speed-up vs 1-node": "n/a"},
    "paper-small/tf-4node-partial": {
        "model": "transformer", "method": "sparse+partial", "best dev BLEU (step)": "24.00 (1000)",
        "test BLEU": "23.10", "time to target, wall": "337.5 s",
        "time to target, modeled (10gbe)": "90.0 s", "bytes/step": "252.00 kB",
        "speed-up vs 1-node": "2.22x", "speed-up vs 4-node dense": "1.78x"},
    "rnn-runs/rnn-1node-dense": {
        "model": "rnn", "time to target, modeled (10gbe)": "80.0 s", "speed-up vs 1-node": "1.00x",
        "speed-up vs 4-node dense": "n/a"},
    "rnn-runs/rnn-4node-error": {
        "steps": "500", "best dev BLEU (step)": "13.00 (500)", "test BLEU": "n/a",
        "time to target, wall": "225.0 s", "time to target, modeled (10gbe)": "50.0 s",
        "speed-up vs 1-node": "1.60x", "status": "incomplete (preempted)"},
    "rnn-runs/rnn-2node-sparse": {
        "nodes": "2", "method": "sparse", "steps": "300", "best dev BLEU (step)": "n/a",
        "time to target, wall": "n/a (no validation)", "bytes/step": "80.00 kB",
        "status": "incomplete (no summary.json)"},
}
FIGURES = [f"{m}-{k}-vs-{x}.png" for m in ("transformer", "rnn") for k in ("loss", "bleu")
           for x in ("steps", "wall", "modeled-10gbe")]
FIGURES += [f"{m}-{k}.png" for m in ("transformer", "rnn") for k in ("bytes-per-step", "divergence")]

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def check_cells(table, expected, run):
    for exp, cells in expected.items():
        row = table.get(exp)
        expect(row is not None, f"{run}: no row for {exp} (rows: {sorted(table)})")
        for col, want in (cells.items() if row else []):
            expect(row.get(col) == want, f"{run}: {exp} / {col}: want {want!r}, got {row.get(col)!r}")


def check_png(path):
    ok = os.path.isfile(path) and os.path.getsize(path) > 5000
    if ok:
        with open(path, "rb") as f:
            ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
    expect(ok, f"{path}: missing, tiny or not a PNG")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {sys.executable} cannot import matplotlib/numpy ({e})")
        return 77
    repo, work = argv
    fixtures = make_fixtures(repo, work)

    # 1. Defaults: both model types, every figure, every row.
    out = os.path.join(work, "default")
    r = run_plot(repo, [fixtures, "--out", out])
    expect(r.returncode == 0, f"default run: exit {r.returncode}\n{r.stderr}")
    expect("transformer: target BLEU 21.60" in r.stdout, "target BLEU not printed on stdout")
    for f in FIGURES:
        check_png(os.path.join(out, f))
    text, table = read_table(os.path.join(out, "summary.md"))
    expect("plot.py " + fixtures + " --out " + out in text, "command line missing in summary.md")
    expect("transformer: target BLEU 21.60 (90% of the best, 24.00)" in text, "transformer target")
    expect("rnn: target BLEU 12.60" in text, "rnn target")
    expect(len(table) == len(EXPECTED), f"want {len(EXPECTED)} rows, got {sorted(table)}")
    expect("slurm" not in " ".join(table), "a folder without result files was taken as a run")
    expect("log.jsonl:11: skipped" in text, "torn log line not reported in the notes")
    check_cells(table, EXPECTED, "default")

    # 2. Explicit target, another network, another reference run.
    out = os.path.join(work, "options")
    r = run_plot(repo, [fixtures, "--out", out, "--target-bleu", "15", "--network", "1gbe",
                        "--baseline", "tf-4node-dense"])
    expect(r.returncode == 0, f"options run: exit {r.returncode}\n{r.stderr}")
    check_png(os.path.join(out, "transformer-loss-vs-modeled-1gbe.png"))
    _, table = read_table(os.path.join(out, "summary.md"))
    # 1gbe: modeled comm is 10x the 10gbe one; BLEU >= 15 first at step 1250 (1 node), 500 (4 nodes).
    check_cells(table, {
        "paper-small/tf-1node-dense": {"time to target, modeled (1gbe)": "125.0 s",
                                       "speed-up vs 1-node": "2.80x"},
        "paper-small/tf-4node-dense": {"time to target, modeled (1gbe)": "350.0 s",
                                       "speed-up vs 1-node": "1.00x"},
        "paper-small/tf-4node-partial": {"time to target, wall": "225.0 s",
                                         "time to target, modeled (1gbe)": "150.0 s",
                                         "speed-up vs 1-node": "2.33x"}}, "options")

    # 3. A single experiment folder given directly.
    out = os.path.join(work, "single")
    r = run_plot(repo, [os.path.join(fixtures, "paper-small", "tf-4node-partial"), "--out", out])
    expect(r.returncode == 0, f"single run: exit {r.returncode}\n{r.stderr}")
    _, table = read_table(os.path.join(out, "summary.md"))
    expect(list(table) == ["tf-4node-partial"], f"single run rows: {list(table)}")
    check_cells(table, {"tf-4node-partial": {"speed-up vs 1-node": "n/a",
                                             "time to target, modeled (10gbe)": "90.0 s"}}, "single")
    check_png(os.path.join(out, "transformer-divergence.png"))

    # 4. --only keeps the matching experiments and nothing else.
    out = os.path.join(work, "only")
    r = run_plot(repo, [fixtures, "--out", out, "--only", "tf-4node-(dense|partial)$"])
    expect(r.returncode == 0, f"--only run: exit {r.returncode}\n{r.stderr}")
    _, table = read_table(os.path.join(out, "summary.md"))
    expect(sorted(table) == ["paper-small/tf-4node-dense", "paper-small/tf-4node-partial"],
           f"--only rows: {sorted(table)}")

    print("FAILED: %d checks" % len(failures) if failures else "OK: plot.py fixtures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
