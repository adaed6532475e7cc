#!/usr/bin/env python3
"""scripts/plot.py: the command of slanalysis/commands/plot.py under its old name (same
arguments, same output). See that module, or scripts/analyze.py for every command."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slanalysis.commands import plot  # noqa: E402
from slanalysis.commands.dispatch import entry  # noqa: E402

if __name__ == "__main__":
    entry(plot.main, sys.argv[1:])
