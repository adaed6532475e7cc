"""The pre-registered verdicts of reproduction v3, per claim (configs/repro-v3/README.md,
"Analysis (fixed here, before the runs)"; the readings of its open points are in
slanalysis/claims_v3.py's docstring).

Usage: analyze.py claims-v3 [RESULTS_DIR] [--S-transformer N] [--S-rnn N] [--out FILE.md]
                  [--json FILE.json] [--profile P.json ...] [--link-terms auto|paper|FILE]
                  [--boot 1000] [--seed 1]
  default RESULTS_DIR: results/repro-v3

Reads each model's budget S from RESULTS_DIR/<model>/plan.json (--S-<model> overrides it) and
the phase-3 cells <model>-<cell>-S<S>-s<seed>; prints markdown (table 1: final dev CE, test
BLEU, test chrF per cell; claims 1-4 with reproduced / partly / not / pending, the rule and
the numbers; each variant against fedavg; the descendants against sparse+partial) and writes
every number as JSON with --json. Works on a suite part-way: what a verdict still needs is
listed and the verdict is "pending". Claim 3's speed-ups are speedup-vs-target's (same
variants, bootstrap and profiles: configs/hardware/*.json by default, the principal one
gpu-class-assumed.json, on every preset network).
Exit status: 0 done (pending verdicts included), 2 bad arguments.
"""
import argparse
import json
import os
import shlex
import sys

from ..claims_v3 import CLAIM3_PROFILE, MODELS, evaluate
from ..claims_v3_text import markdown
from ..experiment import load_experiments
from ..network import PRESETS, with_link_terms
from ..notes import Notes
from .common import (Parser, UsageError, add_bootstrap_args, add_link_terms_arg, bootstrap_args_or_fail, guarded,
                     link_terms_or_fail, profiles_or_fail, results_dir_or_fail, write_atomic)

PROGRAM = "claims-v3"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def positive(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: want a whole number of updates")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: want a positive number of updates")
    return v


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", nargs="?", default=os.path.join(REPO, "results", "repro-v3"),
                   metavar="RESULTS_DIR", help="the v3 tree (default results/repro-v3)")
    for m in MODELS:
        p.add_argument(f"--S-{m}", type=positive, dest=f"S_{m}", metavar="N",
                       help=f"the {m}'s budget S (default: {m}/plan.json's budget.S)")
    p.add_argument("--out", help="also write the markdown here")
    p.add_argument("--json", help="write every number and verdict here (JSON)")
    p.add_argument("--profile", action="append", help="hardware profiles of claim 3's tables "
                   "(repeatable; default configs/hardware/*.json; the verdict uses "
                   "gpu-class-assumed.json, which must be among them)")
    add_link_terms_arg(p)
    add_bootstrap_args(p)
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def run(args, argv, prog):
    results_dir_or_fail(args.results_dir)
    bootstrap_args_or_fail(args)
    profiles = profiles_or_fail(args.profile)
    if not any(os.path.basename(p["path"]) == CLAIM3_PROFILE for p in profiles):
        raise UsageError(f"--profile: claim 3's verdict is read on configs/hardware/{CLAIM3_PROFILE}, "
                         f"which is not among them (add --profile configs/hardware/{CLAIM3_PROFILE})")
    terms = link_terms_or_fail(args.link_terms)
    networks = {n: with_link_terms(net, terms) for n, net in PRESETS.items()}
    notes = Notes(prog)
    exps = load_experiments(args.results_dir, notes)
    if not exps and not any(os.path.isfile(os.path.join(args.results_dir, m, "plan.json"))
                            for m in MODELS):   # a wrong folder, not a suite not begun yet
        raise UsageError(f"{args.results_dir}: no experiments under it (expected a reproduction-v3 "
                         f"tree such as results/repro-v3, with <model>/<experiment>/ folders or <model>/plan.json)")
    same = "".join(f" {o} {shlex.quote(str(v))}" for o, v, d in
                   (("--link-terms", args.link_terms, "auto"), ("--boot", args.boot, 1000),
                    ("--seed", args.seed, 1)) if v != d)
    # claim 3 under the other network model too: the measured link terms vs PAPER.md's
    other = link_terms_or_fail("paper" if args.link_terms != "paper" else "auto")
    other_networks = None
    if other.describe() != terms.describe():
        other_networks = {n: with_link_terms(net, other) for n, net in PRESETS.items()}
    doc = evaluate(args.results_dir, exps, {m: getattr(args, f"S_{m}") for m in MODELS},
                   profiles, networks, terms.describe(), args.boot, args.seed, same,
                   other_networks, other.describe())
    doc["command"] = shlex.join(["python3", "scripts/analyze.py", "claims-v3"] + argv)
    doc["notes"] = notes.lines
    text = markdown(doc, doc["command"])
    if notes.lines:
        text += "\n## Notes\n\n" + "".join(f"- {n}\n" for n in notes.lines)
    # the files first: an --out that cannot be written is an error before anything is printed
    if args.out:
        write_atomic(args.out, text)
    if args.json:
        write_atomic(args.json, json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")
    sys.stdout.write(text)
    return 0
