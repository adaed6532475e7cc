"""python3 -m slanalysis COMMAND [ARGS] (with scripts/ on PYTHONPATH) = scripts/analyze.py."""
import sys

from .commands.dispatch import main

sys.exit(main(sys.argv[1:]))
