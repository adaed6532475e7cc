#!/usr/bin/env python3
"""scripts/vclock.py: the command of slanalysis/commands/vclock.py under its old name (same
arguments, same output). See that module, or scripts/analyze.py for every command."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slanalysis.commands import vclock  # noqa: E402
from slanalysis.commands.dispatch import entry  # noqa: E402

if __name__ == "__main__":
    entry(vclock.main, sys.argv[1:])
