"""Convergence figures and a summary table from run-experiment result directories.

Usage: plot.py RESULTS_DIR [--out DIR] [--network 10gbe] [--target-bleu X] [--baseline NAME]
               [--profile configs/hardware/P.json ... [--profile-network 1gbe]] [--bands]

Reads only the JSON files of docs/LOG_FORMAT.md (config.json, log.jsonl, valid.jsonl,
summary.json) of every experiment directory under RESULTS_DIR, so it works on runs that are
still going or were cut off. Needs matplotlib and numpy (Debian: /usr/bin/python3).
--profile adds dev CE and dev BLEU (and train loss) against the virtual clock of that hardware
profile on --profile-network (scripts/vclock.py): <model>-{dev_ce,bleu,loss}-vs-virtual-<profile>-<net>.png.
--bands adds, for runs that differ only by a -s<seed> suffix, the mean over seeds with a shaded
+- 1 sd band: <model>-{dev_ce,bleu}-bands-vs-{steps,virtual-...}.png.
Exit status: 0 done, 2 bad arguments or no experiments, 1 plotting libraries missing.
"""
import os
import re
import shlex
import sys

from ..curves import MethodColors, band_figure, bytes_figure, curve_figure, step_of, x_getters
from ..experiment import by_model, load_experiments, sort_key
from ..formatting import fmt, slug
from ..logfiles import EXPERIMENT_FILES, number
from ..network import PRESETS
from ..notes import Notes
from ..references import summary_references
from ..summary import default_target, summary_lines
from ..variants import group_variants
from ..virtual_time import annotate
from .common import (Parser, POSITIVE, UsageError, fail, guarded, networks_in_logs_or_fail, profiles_or_fail, pyplot,
                     results_dir_or_fail, write_atomic)

PROGRAM = "plot.py"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--out", help="output folder (default: RESULTS_DIR/figures)")
    p.add_argument("--network", default="10gbe",
                   help="network of modeled_time_s to plot against (default 10gbe)")
    p.add_argument("--target-bleu", type=POSITIVE,
                   help="target dev BLEU for time-to-target (default: 90%% of the best "
                        "BLEU over all runs of the same model type)")
    p.add_argument("--profile", action="append", metavar="P.json",
                   help="hardware profile: also plot against its virtual clock (repeatable)")
    p.add_argument("--profile-network", default="1gbe",
                   help="preset network of the virtual clock figures (default 1gbe)")
    p.add_argument("--bands", action="store_true",
                   help="mean +- sd over seeds (runs named ...-s<seed>) as shaded bands")
    p.add_argument("--baseline", metavar="NAME",
                   help="experiment (name or folder name) used as the 1-node reference "
                        "for its model type (default: the 1-node dense run)")
    p.add_argument("--only", metavar="REGEX",
                   help="plot only experiments whose name matches REGEX (Python re.search), "
                        "e.g. to draw a suite's main comparison without its sweeps")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), prog)


def select(args, exps):
    if args.only is None:
        return exps
    try:
        only = re.compile(args.only)
    except re.error as e:
        raise UsageError(f"--only {args.only!r}: not a regular expression ({e})")
    exps = [e for e in exps if only.search(e.name)]
    if not exps:
        raise UsageError(f"--only {args.only!r} matches no experiment under {args.results_dir}")
    return exps


def main_figures(plt, by_model_, targets, network, out_dir, color_of):
    """Loss and BLEU against steps / wall / modeled time, bytes per step, divergence."""
    figures = []
    for model, group in by_model_.items():
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in model)
        for x_spec in x_getters(network):
            for kind, rows_of, key, y_label, raw, target in (
                    ("loss", lambda e: e.log, "train_loss", "train loss (per target token)",
                     True, None),
                    ("bleu", lambda e: e.valid, "bleu", "dev BLEU", False, targets[model][0])):
                name = f"{safe}-{kind}-vs-{x_spec[0]}.png"
                title = f"{model}: {y_label} vs {x_spec[1]}"
                if curve_figure(plt, group, rows_of, key, y_label, x_spec, title,
                                os.path.join(out_dir, name), color_of, raw, target):
                    figures.append(name)
        name = f"{safe}-bytes-per-step.png"
        if bytes_figure(plt, group, f"{model}: bytes per step", os.path.join(out_dir, name),
                        color_of):
            figures.append(name)
        name = f"{safe}-divergence.png"
        div_x = ("steps", "step", step_of)
        if curve_figure(plt, group, lambda e: [r for r in e.log if "divergence" in r],
                        "divergence", "mean ||theta_n - mean theta|| before averaging", div_x,
                        f"{model}: divergence at averaging steps", os.path.join(out_dir, name),
                        color_of, False, y_from_zero=True):
            figures.append(name)
    return figures


def virtual_and_band_figures(plt, args, profiles, exps, by_model_, out_dir, color_of, notes):
    """--profile: curves against the virtual clock; --bands: mean +- sd over seeds.
    Returns (figures, [(row key, label) of each profile's virtual clock])."""
    figures, virtual = [], []
    x_specs = [("steps", "steps", step_of)]
    if profiles:
        if args.profile_network not in PRESETS:
            notes(f"--profile-network {args.profile_network}: not a preset "
                  f"({', '.join(PRESETS)}); virtual clock figures skipped")
            return figures, virtual
        net = PRESETS[args.profile_network]
        for prof in profiles:
            key = f"_virtual_{slug(prof['name'])}"
            annotate(exps, prof, net, key, notes)
            spec = (f"virtual-{slug(prof['name'])}-{args.profile_network}",
                    f"virtual time ({prof['name']}, {args.profile_network})",
                    lambda r, k=key: number(r.get(k)))
            x_specs.append(spec)
            virtual.append((key, f"{prof['name']}, {args.profile_network}"))
            for model, group in by_model_.items():
                for kind, rows_of, ykey, label, raw in (
                        ("dev_ce", lambda e: e.valid, "dev_ce", "dev cross-entropy", False),
                        ("bleu", lambda e: e.valid, "bleu", "dev BLEU", False),
                        ("loss", lambda e: e.log, "train_loss", "train loss (per target token)", True)):
                    name = f"{slug(model)}-{kind}-vs-{spec[0]}.png"
                    if curve_figure(plt, group, rows_of, ykey, label, spec,
                                    f"{model}: {label} vs {spec[1]}", os.path.join(out_dir, name),
                                    color_of, raw):
                        figures.append(name)
    if not args.bands:
        return figures, virtual
    for model, variants in group_variants([e for e in exps if e.valid]).items():
        for ykey, label in (("dev_ce", "dev cross-entropy"), ("bleu", "dev BLEU")):
            for tag, x_label, x_of in x_specs:
                name = f"{slug(model)}-{ykey}-bands-vs-{tag}.png"
                if band_figure(plt, variants, ykey, label, x_label, x_of,
                               f"{model}: {label}, mean +- sd over seeds", os.path.join(out_dir, name),
                               color_of):
                    figures.append(name)
    return figures, virtual


def run(args, prog):
    results_dir_or_fail(args.results_dir)
    notes = Notes(prog)
    exps = load_experiments(args.results_dir, notes)
    if not exps:
        raise UsageError(f"no experiments under {args.results_dir} (looked for "
                         f"folders holding {', '.join(EXPERIMENT_FILES)})")
    exps = sorted(select(args, exps), key=sort_key)
    groups = by_model(exps)
    if args.baseline is not None and not any(
            args.baseline in (e.name, os.path.basename(e.name)) for e in exps):
        raise UsageError(f"--baseline {args.baseline}: no such experiment (have: "
                         f"{', '.join(e.name for e in exps)})")
    networks_in_logs_or_fail(exps, [args.network], args.results_dir)
    profiles = profiles_or_fail(args.profile) if args.profile else []
    refs = {model: summary_references(group, args.baseline) for model, group in groups.items()}
    targets = {model: (args.target_bleu, "--target-bleu") if args.target_bleu is not None
               else default_target(group) for model, group in groups.items()}
    try:
        plt = pyplot()
        import numpy  # noqa: F401  (smoothing)
    except ImportError as e:
        return fail(prog, f"{e}; run with a python3 that has matplotlib and numpy "
                    f"(Debian: /usr/bin/python3 with python3-matplotlib)", 1)
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    color_of = MethodColors()
    figures = main_figures(plt, groups, targets, args.network, out_dir, color_of)
    more, virtual = virtual_and_band_figures(plt, args, profiles, exps, groups, out_dir, color_of,
                                             notes)
    figures += more
    for model, (target, how) in targets.items():
        print(f"{prog}: {model}: target BLEU {fmt(target)} ({how})")
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
    lines = summary_lines(command, groups, targets, refs, args.network, figures, notes, virtual)
    write_atomic(os.path.join(out_dir, "summary.md"), "\n".join(lines) + "\n")
    print(f"{prog}: {len(exps)} experiments, {len(figures)} figures -> {out_dir}")
    return 0
