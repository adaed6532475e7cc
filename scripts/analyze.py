#!/usr/bin/env python3
"""Every analysis command of sparselocal in one entry point: analyze.py COMMAND [ARGS].
The commands live in scripts/slanalysis/commands/; claims.py, plot.py, speedup_map.py,
vclock.py and bytes-report.py next to this file are the same commands under their old names."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slanalysis.commands.dispatch import entry, main  # noqa: E402

if __name__ == "__main__":
    entry(main, sys.argv[1:])
