"""Speed-up against the target, with 95% bootstrap intervals over seeds (reproduction v3).

Usage: analyze.py speedup-vs-target RESULTS_DIR [--metric ce|bleu] [--factors 1.0,1.05,...]
                  [--profile P.json ...] [--network 1gbe ...] [--ref4 NAME] [--ref1 NAME]
                  [--reference mean|worst] [--only REGEX] [--model M] [--boot 1000]
                  [--seed 1] [--out DIR] [--tag T] [--no-plot] [--no-selection-cost]
                  [--glance FACTOR]

Targets are factors of the 4-node dense reference's final dev CE (default x1.00..x1.30) or
final dev BLEU (x0.90..x1.00), means over its seeds (--reference worst: its worst seed's). For every seed variant, the step at which
each seed reaches a target is interpolated between validations, its time there is read on the
virtual clock of each hardware profile (configs/hardware/*.json by default) on each preset
network, and the speed-up over 4-node dense and over 1 node (ratio of mean times over seeds)
gets a percentile-bootstrap interval over seeds (slanalysis.target_sweep). Per model, two
tables "at a glance" come first: every variant's speed-up over each reference at one target
(--glance; CE x1.05 by default, claim 3's) on every profile x network at once. In a reproduction-v3
tree (RESULTS_DIR/<model>/plan.json with the budget S) the references default to the phase-3
cells 4-node dense and 1-node dense at equal tokens (<model>-<cell>-S<S>, or with the v3.1
amendment the variant at the cell's lr at S that plan.json names), and rows and lines to the
phase-3 cells (v3: the variants at S; v3.1: the cells plan.json names; --only . shows the
lr-sweep, phase-1b and budget runs too). Writes
speedup-vs-target-<metric>[-<model>]<tag>.md and, with matplotlib, one figure per model x
profile x network: <model>-speedup-vs-target-<metric>-<profile>-<net><tag>.png (<profile>:
the profile file's name without .json; a line and a
band per variant; panels over 4-node dense and over 1 node).
Exit status: 0 done, 2 bad arguments or no experiments, 1 plotting libraries missing.
"""
import argparse
import os
import re
import shlex
import sys

from ..experiment import load_experiments
from ..formatting import slug
from ..profiles import without_selection_cost
from ..notes import Notes
from ..references import PlanDefaults, variant_references
from ..target_sweep import DEFAULT_FACTORS, Sweep, sweep_lines
from ..variants import group_variants
from .common import (NON_NEGATIVE, Parser, UsageError, add_bootstrap_args, add_clock_args, bootstrap_args_or_fail,
                     clock_args_or_fail, guarded, pyplot_unless,
                     results_dir_or_fail, selection_or_fail, validated_experiments_or_fail,
                     wall_selection_note, write_atomic)

PROGRAM = "speedup-vs-target"


def factors_arg(text):
    try:
        fs = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want comma-separated numbers, e.g. 1.0,1.1")
    if not fs or any(f <= 0 for f in fs):
        raise argparse.ArgumentTypeError(f"{text!r}: want positive factors")
    return sorted(fs)


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--metric", choices=("ce", "bleu"), default="ce")
    p.add_argument("--factors", type=factors_arg,
                   help="target factors of the reference's final value (default: CE "
                        "1.00,1.05,...,1.30; BLEU 0.90,0.92,...,1.00)")
    p.add_argument("--glance", type=NON_NEGATIVE, metavar="FACTOR",
                   help="one target for the 'at a glance' tables (every variant on every profile "
                        "and network at once); default 1.05 for CE (claim 3's pre-registered "
                        "target), none for BLEU; 0: none")
    add_clock_args(p)
    p.add_argument("--ref4", help="variant name of the 4-node dense reference")
    p.add_argument("--ref1", help="variant name of the 1-node reference")
    p.add_argument("--reference", choices=("mean", "worst"), default="mean",
                   help="the reference's final value: mean over its seeds (default) or its "
                        "worst seed's (every seed reaches x1.00 then)")
    p.add_argument("--only", metavar="REGEX", help="rows and lines only for variants whose "
                   "name matches (the references are always used)")
    p.add_argument("--model", help="only this model type")
    add_bootstrap_args(p)
    p.add_argument("--out", help="output folder (default RESULTS_DIR/figures)")
    p.add_argument("--tag", default="", help="suffix of the output file names")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--no-selection-cost", action="store_true",
                   help="charge every method's compression (SEL) at 0 on every profile: the lower "
                        "bound of its time, beside the profile's own selection model")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def run(args, argv, prog):
    results_dir_or_fail(args.results_dir)
    bootstrap_args_or_fail(args)
    try:
        only = re.compile(args.only) if args.only else None
    except re.error as e:
        raise UsageError(f"--only {args.only!r}: not a regular expression ({e})")
    key = "bleu" if args.metric == "bleu" else "dev_ce"
    factors = args.factors or list(DEFAULT_FACTORS[key])
    glance = (1.05 if key == "dev_ce" else None) if args.glance is None else (args.glance or None)
    notes = Notes(prog)
    exps = validated_experiments_or_fail(load_experiments(args.results_dir, notes), args.model,
                                         args.results_dir)
    selection_or_fail(exps, args.ref4, args.ref1, only, args.results_dir)
    profiles, networks, terms = clock_args_or_fail(args)
    if args.no_selection_cost:
        profiles = [without_selection_cost(pr) for pr in profiles]
    plt = pyplot_unless(args.no_plot)
    if plt is not None:
        from ..curves import MethodColors
        from ..target_figure import draw
        color_of = MethodColors()
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    label = "dev CE" if key == "dev_ce" else "dev BLEU"
    out = ["# Speed-up against the target", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/analyze.py", "speedup-vs-target"] + argv), "",
           f"Target = factor x the 4-node dense reference's final {label} (last validation; "
           f"{args.reference} over its seeds). Steps to target: interpolated linearly between "
           "validations (the first validation's step when that one already reaches it). Time to target: the "
           "virtual clock t c + SEL(t) + X(t) 8/B + Y(t) a at that step, with each profile's c "
           f"and selection model, on each preset network; network model: {terms.describe()}. Speed-up = the reference's mean time "
           "over seeds / the variant's (\"not reached\": a seed never reaches the target). "
           f"[low, high]: 95% percentile bootstrap over seeds, {args.boot} replicates, resampling "
           f"seed {args.seed}; every variant's seeds are resampled, the reference's too (which "
           "moves the target with them); a replicate in which a resampled seed of the variant never "
           "reaches its target gives speed-up 0 (the cell's time is infinite), so a low end of 0.00 "
           "means that happened in about 2.5% of the replicates or more. Profiles: " +
           ", ".join(f"`{os.path.relpath(pr['path'])}` ({pr['name']})" for pr in profiles), ""]
    groups = group_variants(exps)
    out += wall_selection_note(groups, profiles)
    figures = []
    for model, variants in groups.items():
        plan = PlanDefaults(args.results_dir, model, variants, args.ref4, args.ref1, only)
        if plan.skip:
            out += [f"## {model}", "", f"({plan.skip})", ""]
            continue
        d4, d1 = variant_references(variants, plan.ref4, plan.ref1)
        if plan.no_ref1:
            d1 = None
        if d4 is None:
            out += [f"## {model}", "", "(no 4-node dense variant: no targets)", ""]
            continue
        sweep = Sweep(variants, key, d4, args.boot, args.seed, reference=args.reference)
        shown, preface = plan.shown(variants, d4, d1), plan.preface
        out += sweep_lines(model, sweep, factors, profiles, networks, d1, shown, preface, glance)
        if plt is not None and not sweep.ok():
            for prof in profiles:
                for net in networks:
                    name = draw(plt, model, sweep, factors, prof, net, d1, shown, out_dir,
                                color_of, args.tag)
                    if name:
                        figures.append(name)
    if figures:
        out += ["## Figures", ""] + [f"- [{f}]({f})" for f in figures] + [""]
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    only_model = f"-{slug(args.model)}" if args.model else ""
    write_atomic(os.path.join(out_dir, f"speedup-vs-target-{slug(label)}{only_model}{args.tag}.md"), text)
    sys.stdout.write(text)
    return 0
