"""What every command does alike: refuse bad arguments with one line and exit 2, load
profiles, write outputs atomically, import matplotlib only when a figure is asked for."""
import argparse
import math
import os
import sys

from ..logfiles import DamagedLog
from ..profiles import load_profiles
from ..variants import group_variants


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (`prog: error: ... (see --help)`) and exit 2,
    not the usage block first."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def number_type(low=None, high=None, low_open=False, integer=False):
    """An argparse type: a finite number in [low, high] ((low, high] with low_open), so a value
    such as --bandwidth-gbps 0 or --bleu-fraction 2 is refused with one line, not divided by or
    used to print nonsense."""
    def parse(text):
        try:
            x = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: want {'an integer' if integer else 'a number'}")
        bad = not math.isfinite(x) or (low is not None and (x <= low if low_open else x < low)) or \
            (high is not None and x > high)
        if bad:
            lo = "" if low is None else (f"> {low:g}" if low_open else f">= {low:g}")
            hi = "" if high is None else f"<= {high:g}"
            kind = "an integer" if integer else "a finite number"
            raise argparse.ArgumentTypeError(f"{text!r}: want {kind} {' and '.join(t for t in (lo, hi) if t)}")
        return x
    return parse


POSITIVE = number_type(0, low_open=True)
NON_NEGATIVE = number_type(0)


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


def add_clock_args(p):
    """--profile, --network and --link-terms of the commands that read the virtual clock on
    every profile x preset network (clock_args_or_fail reads them back)."""
    from ..network import PRESETS
    p.add_argument("--profile", action="append", help="hardware profile (repeatable; default "
                   "configs/hardware/*.json)")
    p.add_argument("--network", action="append", choices=sorted(PRESETS),
                   help="preset network (repeatable; default all)")
    add_link_terms_arg(p)


def clock_args_or_fail(args):
    """(profiles, networks with the link terms, the link terms) of add_clock_args' options."""
    from ..network import PRESETS, with_link_terms
    profiles = profiles_or_fail(args.profile)
    terms = link_terms_or_fail(args.link_terms)
    return profiles, [with_link_terms(PRESETS[n], terms) for n in (args.network or list(PRESETS))], terms


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


def validated_experiments_or_fail(exps, model, results_dir):
    """The experiments with validations (of `model` when given); UsageError naming --model
    when there are none."""
    every = [e for e in exps if e.valid]
    picked = [e for e in every if model is None or e.model == model]
    if not picked:
        have = sorted({e.model for e in every if e.model})
        raise UsageError(f"no experiments with validations under {results_dir}" +
                         (f" for --model {model} (models there: {', '.join(have) or 'none'})"
                          if model else ""))
    return picked


def selection_or_fail(exps, ref4, ref1, only, results_dir):
    """UsageError for --ref4 / --ref1 naming no variant, or an --only (compiled) matching none:
    the tables would be empty and the command would still exit 0."""
    names = {v.name for vs in group_variants(exps).values() for v in vs}
    for opt, want in (("--ref4", ref4), ("--ref1", ref1)):
        if want and want not in names:
            raise UsageError(f"{opt} {want}: no such variant (variants are run names without "
                             f"-s<seed>, e.g. {min(names, key=len)})")
    if only and not any(only.search(n) for n in names):
        raise UsageError(f"--only {only.pattern!r} matches no variant under {results_dir}")


def networks_in_logs_or_fail(exps, networks, results_dir):
    """UsageError for a network of modeled_time_s that no log holds: every time axis or
    column would be empty (a typo, not a result)."""
    have = {k for e in exps for r in e.log + e.valid if isinstance(r.get("modeled_time_s"), dict)
            for k in r["modeled_time_s"]}
    if not any(e.log for e in exps):
        return
    for n in networks:
        if n not in have:
            raise UsageError(f"--network {n}: in no log under {results_dir} "
                             f"(have: {', '.join(sorted(have)) or 'none'})")


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


class NoPlotting(Exception):
    """A figure is wanted and matplotlib cannot be imported: the command exits 1."""


def pyplot_unless(no_plot):
    """pyplot() for a command's --no-plot switch: None with it; NoPlotting when matplotlib is
    missing without it."""
    if no_plot:
        return None
    try:
        return pyplot()
    except ImportError as e:
        raise NoPlotting(f"{e}; use a python3 with matplotlib or --no-plot")


def guarded(prog, fn, *args):
    """fn(*args), with a UsageError, or an OSError (an --out into a missing folder, a file
    where a folder is wanted), turned into its one-line message and exit status 2."""
    try:
        return fn(*args)
    except (UsageError, DamagedLog) as e:
        return fail(prog, e)
    except NoPlotting as e:
        return fail(prog, e, 1)
    except BrokenPipeError:
        raise  # the reader stopped early: dispatch.entry ends quietly
    except OSError as e:
        return fail(prog, f"{e.filename}: {e.strerror}" if e.filename else e)


def wall_selection_note(groups, profiles=None):
    """A paragraph when a measured selection cost (SEL on a profile whose selection is
    measured, or the maps' f; profiles=None) comes from logs that hold wall seconds (binaries
    before 2026-12-07): name those runs' methods and say it is an upper bound. groups:
    variants.group_variants' {model: [Variant]}, whose clocks are read."""
    if profiles is not None and all(pr["selection"].get("mode", "measured") != "measured"
                                    for pr in profiles):
        return []
    walled = sorted({c.method or "?" for vs in groups.values() for v in vs for c in v.clocks
                     if c.sel_clock == "wall"})
    if not walled:
        return []
    where = ("On the profiles whose selection is measured, SEL(t)" if profiles is not None
             else "The measured selection cost (f, and SEL on measured profiles)")
    return [f"{where} of " + ", ".join(walled) + " comes from logs whose compress_s / "
            "decompress_s are wall seconds (binaries before 2026-12-07): where simulated nodes "
            "shared cores they overstate the local work, so those times are upper bounds "
            "(DeMo's by far the most: docs/LOG_FORMAT.md, `compress_clock`)" +
            (". `--no-selection-cost` gives the lower bounds." if profiles is not None else "."), ""]
