#!/usr/bin/env python3
"""Stages for a commit what the reproduction-v3 suite has finished, as configs/repro-v3/README.md
asks ("commit logs as runs finish, never checkpoints"): every run folder under
RESULTS_DIR/<model>/ whose summary.json says "complete" gets its log.jsonl and valid.jsonl
gzip-compressed (scripts/compress-logs.py) and is `git add`ed (checkpoints and locks are
ignored by .gitignore, so they stay out); so are each model's plan.json and its suite record
configs/repro-v3/<model>.json. A run still running, or stopped and waiting to be resumed, is
left alone: run-experiment appends to its logs on --resume. With --status, STATUS.md is
regenerated (analyze.py v3-status --out RESULTS_DIR/STATUS.md) and staged too.

Prints each newly staged run with its final dev CE and test BLEU, the numbers a commit message
should give. Commits nothing; run it from anywhere inside the repository.

Usage: scripts/repro_v3_stage.py [RESULTS_DIR] [--config-dir DIR] [--status]
  defaults: results/repro-v3, configs/repro-v3 (relative to the repository root)
Exit status 0; 2 when RESULTS_DIR is not a folder or this is not a git checkout."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from slanalysis.logfiles import read_json, read_jsonl, run_complete  # noqa: E402


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def changed(repo, path):
    """True when git sees anything to stage under path (new, modified or deleted files)."""
    return bool(git(repo, "status", "--porcelain", "--", path).strip())


def finals(run_dir):
    """(final dev CE, test BLEU) of a finished run, None where absent."""
    rows = read_jsonl(os.path.join(run_dir, "valid.jsonl"))
    ce = next((r["dev_ce"] for r in reversed(rows) if isinstance(r.get("dev_ce"), (int, float))), None)
    s = read_json(os.path.join(run_dir, "summary.json"), lambda _: None) or {}
    return ce, s.get("test_bleu")


def main(argv):
    ap = argparse.ArgumentParser(prog="repro_v3_stage.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", default="results/repro-v3")
    ap.add_argument("--config-dir", default="configs/repro-v3")
    ap.add_argument("--status", action="store_true", help="regenerate and stage STATUS.md")
    a = ap.parse_args(argv)
    try:
        repo = git(os.getcwd(), "rev-parse", "--show-toplevel").strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        print("repro_v3_stage: not inside a git checkout", file=sys.stderr)
        return 2
    results = os.path.join(repo, a.results) if not os.path.isabs(a.results) else a.results
    configs = os.path.join(repo, a.config_dir) if not os.path.isabs(a.config_dir) else a.config_dir
    if not os.path.isdir(results):
        print(f"repro_v3_stage: {a.results}: not a folder (the suite's results, e.g. "
              "results/repro-v3)", file=sys.stderr)
        return 2
    models = sorted(m for m in os.listdir(results) if os.path.isdir(os.path.join(results, m)))
    folders = [os.path.join(results, m) for m in models]
    subprocess.run([sys.executable, os.path.join(HERE, "compress-logs.py"), *folders], check=True)
    staged = []
    for model_dir in folders:
        for run in sorted(os.listdir(model_dir)):
            d = os.path.join(model_dir, run)
            if os.path.isdir(d) and run_complete(d) and changed(repo, d):
                git(repo, "add", "--", d)
                staged.append(d)
        extra = [os.path.join(model_dir, "plan.json"),
                 os.path.join(configs, os.path.basename(model_dir) + ".json")]
        for f in extra:
            if os.path.isfile(f) and changed(repo, f):
                git(repo, "add", "--", f)
    if a.status:
        status = os.path.join(results, "STATUS.md")
        subprocess.run([sys.executable, os.path.join(HERE, "analyze.py"), "v3-status", results,
                        "--suites", configs, "--out", status], check=True, stdout=subprocess.DEVNULL)
        git(repo, "add", "--", status)
    for d in staged:
        ce, bleu = finals(d)
        print(f"staged {os.path.relpath(d, repo)}: final dev CE "
              f"{'n/a' if ce is None else f'{ce:.4f}'}, test BLEU "
              f"{'n/a' if bleu is None else f'{bleu:.2f}'}")
    if not staged:
        print("repro_v3_stage: no newly finished run to stage")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
