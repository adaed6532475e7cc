"""What every command does alike: refuse bad arguments with one line and exit 2, load
profiles, write outputs atomically, import matplotlib only when a figure is asked for."""
import os
import sys

from ..profiles import load_profiles


class UsageError(Exception):
    """Bad input: the command prints `<program>: error: <message>` and exits 2."""


def fail(program, message, status=2):
    print(f"{program}: error: {message}", file=sys.stderr)
    return status


def profiles_or_fail(paths):
    """The hardware profiles (default: configs/hardware/*.json); UsageError when one cannot
    be read."""
    try:
        return load_profiles(paths)
    except OSError as e:
        raise UsageError(f"--profile {e.filename}: {e.strerror}")
    except ValueError as e:
        raise UsageError(f"--profile: {e}")


def results_dir_or_fail(path):
    if not os.path.isdir(path):
        raise UsageError(f"{path}: not a directory")


def write_atomic(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def pyplot():
    """matplotlib.pyplot on the Agg backend; ImportError when matplotlib is missing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def guarded(prog, fn, *args):
    """fn(*args), with a UsageError turned into its one-line message and exit status 2."""
    try:
        return fn(*args)
    except UsageError as e:
        return fail(prog, e)
