#!/usr/bin/env python3
"""Compresses the log.jsonl and valid.jsonl of every FINISHED run under the given folders to
.gz files (gzip -9, deterministic: no name or time in the header), so committed results stay
small (a 12000-update run's log.jsonl is ~1 MB, ~8x less compressed; a 24000-update run's
valid.jsonl, validated every 25 updates at the end, ~160 KB). The analysis commands
(scripts/analyze.py and the scripts that wrap it) and scripts/repro_v3.py read the .gz file
where the plain one is absent. A run still running or that may be resumed (summary.json not
"complete") is left alone: run-experiment appends to and truncates both on --resume.

Usage: scripts/compress-logs.py DIR... [--dry-run]"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slanalysis.logfiles import run_complete  # noqa: E402


COMPRESSED = ("log.jsonl", "valid.jsonl")


def compress(path):
    with open(path, "rb") as f:
        data = f.read()
    tmp = path + ".gz.tmp"
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=9,
                                               fileobj=raw, mtime=0) as z:
        z.write(data)
    with gzip.open(tmp, "rb") as z:  # read back before the original goes
        if z.read() != data:
            os.remove(tmp)
            raise RuntimeError(f"{path}: compressed copy does not read back")
    os.replace(tmp, path + ".gz")
    os.remove(path)
    return len(data), os.path.getsize(path + ".gz")


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    dry = "--dry-run" in argv
    dirs = [a for a in argv if a != "--dry-run"]
    if not dirs:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    # every argument checked before any file changes (a mistyped --dry-run compressed for real)
    for a in dirs:
        if a.startswith("-"):
            print(f"compress-logs: {a}: unknown option (the only one is --dry-run)", file=sys.stderr)
            return 2
        if not os.path.isdir(a):
            print(f"compress-logs: {a}: not a folder", file=sys.stderr)
            return 2
    before = after = n = 0
    for root in dirs:
        for d, subdirs, files in os.walk(root):
            subdirs[:] = sorted(x for x in subdirs if x != "checkpoints")
            if not any(name in files for name in COMPRESSED) or not run_complete(d):
                continue
            for name in COMPRESSED:
                if name not in files:
                    continue
                p = os.path.join(d, name)
                if dry:
                    print(f"would compress {p}")
                    continue
                a, b = compress(p)
                before, after, n = before + a, after + b, n + 1
    if not dry:
        print(f"compress-logs: {n} file(s) -> .gz, {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
