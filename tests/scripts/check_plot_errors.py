#!/usr/bin/env python3
"""ctest plot_py_errors: scripts/plot.py must refuse, with exit 2 and a message on stderr,
a folder holding no experiments, a missing folder, an unknown --baseline and an --only
that is no regular expression or matches nothing.

Usage: check_plot_errors.py REPO_ROOT WORK_DIR      (exit 0 pass, 1 fail)
"""
import os
import shutil
import sys

from plot_table import run_plot


def main(argv):
    repo, work = argv
    shutil.rmtree(work, ignore_errors=True)
    empty = os.path.join(work, "empty")
    unrelated = os.path.join(work, "unrelated", "suite", "slurm")
    os.makedirs(empty)
    os.makedirs(unrelated)
    with open(os.path.join(unrelated, "job-1.out"), "w") as f:
        f.write("not a result file\n")
    one = os.path.join(work, "one")
    os.makedirs(one)
    with open(os.path.join(one, "config.json"), "w") as f:
        f.write('{"model": {"type": "rnn"}}')
    cases = [("empty folder", [empty], "no experiments under"),
             ("folder without result files", [os.path.join(work, "unrelated")], "no experiments under"),
             ("missing folder", [os.path.join(work, "nope")], "not a directory"),
             ("unknown --baseline", [one, "--baseline", "nope", "--out", os.path.join(work, "o")],
              "--baseline nope: no such experiment"),
             ("--only that is not a regex", [one, "--only", "(", "--out", os.path.join(work, "o")],
              "not a regular expression"),
             ("--only matching nothing", [one, "--only", "zzz", "--out", os.path.join(work, "o")],
              "matches no experiment")]
    failed = 0
    for what, args, message in cases:
        r = run_plot(repo, args)
        if r.returncode != 2 or message not in r.stderr:
            failed += 1
            print(f"FAIL: {what}: want exit 2 and {message!r} on stderr, got exit "
                  f"{r.returncode}, stderr: {r.stderr.strip()!r}")
        else:
            print(f"ok: {what}: {r.stderr.strip()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
