"""Warnings about the inputs: printed on stderr and kept, so the tables can list them too."""
import sys


class Notes:
    def __init__(self, program="plot.py"):
        self.program = program
        self.lines = []

    def __call__(self, text):
        self.lines.append(text)
        print(f"{self.program}: warning: {text}", file=sys.stderr)


def silent(_text):
    """A note sink for readers whose caller reports nothing (vclock.py's sub-commands)."""
