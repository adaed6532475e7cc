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


def add_link_terms_arg(p):
    p.add_argument("--link-terms", default="auto", metavar="auto|paper|FILE",
                   help="the ring model's measured link terms (efficiency eta, per-hop overhead "
                   "o): a clock validation FILE, 'paper' for PAPER.md's model (eta 1, o 0), or "
                   "'auto' = results/clock/validation.json when it exists (default)")


def link_terms_or_fail(spec):
    from ..network import link_terms
    try:
        return link_terms(spec)
    except ValueError as e:
        raise UsageError(f"--link-terms: {e}")


def add_bootstrap_args(p):
    """--boot and --seed of the percentile bootstrap over seeds (v3's pre-registered 1000, 1)."""
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default: the "
                   "pre-registered 1000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the resampling (default 1)")


def bootstrap_args_or_fail(args):
    if args.boot < 1:
        raise UsageError(f"--boot {args.boot}: want at least 1 replicate")


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
    """fn(*args), with a UsageError, or an OSError (an --out into a missing folder, a file
    where a folder is wanted), turned into its one-line message and exit status 2."""
    try:
        return fn(*args)
    except UsageError as e:
        return fail(prog, e)
    except OSError as e:
        return fail(prog, f"{e.filename}: {e.strerror}" if e.filename else e)
