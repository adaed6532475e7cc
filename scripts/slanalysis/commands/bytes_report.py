"""Bytes, divergence and modeled time of runs, from their log.jsonl (and summary.json) files.

Usage: bytes-report.py BASELINE_DIR RUN_DIR [RUN_DIR ...]
Prints a markdown table: mean bytes sent per node and step (summary.json's bytes_per_step
where it covers the log), the ratio to BASELINE_DIR's,
modeled total time on 1gbe and 10gbe, and for each averaging step the parameter divergence
before and after averaging."""
import os
import sys

from ..comm_model import upgrade_run
from ..logfiles import DamagedLog, logged_bytes_per_step, read_json, read_jsonl
from .common import Parser, UsageError, fail

PROGRAM = "bytes-report.py"


def rows_of(d):
    if not os.path.isdir(d):
        raise UsageError(f"{d}: not a folder (expected a run's results folder, with its log.jsonl)")
    log = os.path.join(d, "log.jsonl")
    if not (os.path.isfile(log) or os.path.isfile(log + ".gz")):
        raise UsageError(f"{d}: no log.jsonl (expected a run's results folder)")
    # a torn line (a run killed mid-write) is skipped, with a warning
    rows = read_jsonl(log, note=lambda m: print(f"{PROGRAM}: warning: {m}", file=sys.stderr))
    if not rows:
        raise UsageError(f"{log}: no log lines")
    last = rows[-1]
    config = read_json(os.path.join(d, "config.json"), lambda m: None) or {}
    upgrade_run(config, last.get("method"), last.get("nodes"), rows, [], None,
                note=lambda m: print(f"{PROGRAM}: warning: {d}: {m}", file=sys.stderr))
    return rows


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0],
               epilog="Prints a markdown table: mean bytes sent per node and step, the ratio to "
                      "BASELINE_DIR's, modeled total time on 1gbe and 10gbe, and for each averaging "
                      "step the parameter divergence before and after averaging.")
    p.add_argument("baseline_dir", metavar="BASELINE_DIR", help="the run the ratios are against")
    p.add_argument("run_dirs", metavar="RUN_DIR", nargs="+", help="runs to report (their log.jsonl)")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    args = parse_args(argv, prog)
    try:
        report([args.baseline_dir] + args.run_dirs)
    except (UsageError, DamagedLog) as e:
        return fail(prog, e)
    except KeyError as e:
        return fail(prog, f"a log line lacks {e} (bytes-report needs every step logged with "
                    "bytes_sent, method, nodes, step and modeled_time_s)")
    return 0


def bytes_per_step(d, rows):
    """(mean bytes a node sent per step, exact?). Exact from summary.json's bytes_per_step
    (the run's total over its steps) when it covers the logged steps, or from a log with every
    step in it; else read from the logged steps (logfiles.logged_bytes_per_step: the rate
    between two rows taken as constant) and marked as an estimate."""
    for r in rows:
        r["bytes_sent"]  # every row has it (a KeyError is main's one-line error)
    summary = read_json(os.path.join(d, "summary.json"), lambda m: None) or {}
    last = rows[-1]["step"]
    if isinstance(summary.get("bytes_per_step"), (int, float)) and summary.get("steps") == last:
        return float(summary["bytes_per_step"]), True
    return (logged_bytes_per_step(rows),
            [r["step"] for r in rows] == list(range(rows[0]["step"], last + 1)))


def report(dirs):
    runs = {d: rows_of(d) for d in dirs}   # every folder checked before the table starts
    per_step = {d: bytes_per_step(d, runs[d]) for d in dirs}
    base_bytes = per_step[dirs[0]][0]
    print("| run | method | nodes | steps | bytes/step/node | vs baseline | modeled s 1gbe | modeled s 10gbe |")
    print("|---|---|---|---|---|---|---|---|")
    divergences = []
    estimated = False
    for d in dirs:
        rows = runs[d]
        b, exact = per_step[d]
        estimated |= not exact
        last = rows[-1]
        m = last["modeled_time_s"]
        print(f"| {os.path.basename(d.rstrip('/'))} | {last['method']} | {last['nodes']} | {last['step']} "
              f"| {b:,.0f}{'' if exact else ' (est.)'} | {100 * b / base_bytes:.2f}% | {m['1gbe']:.1f} "
              f"| {m['10gbe']:.1f} |")
        divergences += [(os.path.basename(d.rstrip('/')), r["step"], r["divergence"], r["divergence_after"])
                        for r in rows if "divergence" in r]
    if divergences:
        print("\n| run | step | divergence before averaging | after |")
        print("|---|---|---|---|")
        for name, step, before, after in divergences:
            print(f"| {name} | {step} | {before:.6g} | {after:.6g} |")
    print("\n(bytes: the per-node payload per step, summary.json's bytes_per_step, or the mean over "
          "a log with every step in it" + ("; est. = read from the logged steps of a run without a "
          "summary.json for them, logged every few steps: the rate between two logged rows is "
          "taken as constant" if estimated else "") + ")")
