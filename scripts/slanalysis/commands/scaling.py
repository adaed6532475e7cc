"""Phase 4 of reproduction v3: scaling 1 -> 2 -> 4 nodes and the drop ratio, read as
configs/repro-v3/README.md "Phase 4's readings" fixed them (seed 1 of every run; claim 3's
target, dev CE x1.05 of 4-node dense's mean final; virtual clock of every profile x network).

Usage: analyze.py scaling [RESULTS_DIR] [--model M] [--factor 1.05] [--profile P.json ...]
                  [--network 1gbe ...] [--link-terms auto|paper|FILE] [--out DIR] [--no-plot]
  default RESULTS_DIR: results/repro-v3

Prints, per model: final dev CE, test BLEU and updates to the target of the 1-, 2- and 4-node
runs of dense and sparse+partial K500 (one node: the 1-node dense control at equal tokens,
beside it the one at equal updates); per profile x network their time to the target and the
speed-up over one node with the parallel efficiency (speed-up / N); then sparse+partial at
rho 0.9 / 0.99 / 0.999 with its bytes per update and its speed-up over 4-node dense. A run not
finished yet is shown as such. --factor reads the same at another target (x that factor of
4-node dense's mean final dev CE; 1.05 is the pre-registered one, any other is a reading
chosen later and the output says so). Writes scaling.md and, with matplotlib,
<model>-scaling.png (on configs/hardware/gpu-class-assumed.json, or the first --profile) into
--out (default RESULTS_DIR/figures); another factor adds -x<factor> to both names.
Exit status: 0 done (runs still to come included), 1 plotting libraries missing, 2 bad
arguments.
"""
import os
import shlex
import sys

from ..claims_v3 import CLAIM3_FACTOR, CLAIM3_PROFILE, MODELS
from ..experiment import load_experiments
from ..notes import Notes
from ..phase4 import Phase4, lines
from .claims_v3 import REPO
from .common import (POSITIVE, Parser, add_clock_args, clock_args_or_fail, guarded,
                     pyplot_unless, results_dir_or_fail, write_atomic)

PROGRAM = "scaling"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", nargs="?", default=os.path.join(REPO, "results", "repro-v3"),
                   metavar="RESULTS_DIR", help="the v3 tree (default results/repro-v3)")
    p.add_argument("--model", choices=MODELS, help="only this model")
    p.add_argument("--factor", type=POSITIVE, default=CLAIM3_FACTOR,
                   help=f"target = this factor x 4-node dense's mean final dev CE (default "
                        f"{CLAIM3_FACTOR:g}, the pre-registered one)")
    add_clock_args(p)
    p.add_argument("--out", help="output folder (default RESULTS_DIR/figures)")
    p.add_argument("--no-plot", action="store_true")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def run(args, argv, prog):
    results_dir_or_fail(args.results_dir)
    profiles, networks, terms = clock_args_or_fail(args)
    plt = pyplot_unless(args.no_plot)
    notes = Notes(prog)
    exps = load_experiments(args.results_dir, notes)
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    figure_profile = next((pr for pr in profiles if os.path.basename(pr["path"]) == CLAIM3_PROFILE),
                          profiles[0])
    out = ["# Reproduction v3, phase 4: scaling and the drop ratio", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/analyze.py", PROGRAM] + argv), "",
           "Rules: configs/repro-v3/README.md, \"Phase 4's readings\" (fixed before any phase-4 "
           "run). Network model: " + terms.describe() + ". Profiles: " +
           ", ".join(f"`{os.path.relpath(pr['path'])}` ({pr['name']})" for pr in profiles), ""]
    tag = ""
    if args.factor != CLAIM3_FACTOR:
        tag = f"-x{args.factor:g}"
        out += [f"**Target x{args.factor:g}, not the pre-registered x{CLAIM3_FACTOR:g}**: a reading "
                "chosen on the command line, outside the rules.", ""]
    figures = []
    for model in ([args.model] if args.model else MODELS):
        ph = Phase4(args.results_dir, model, exps, args.factor)
        out += lines(ph, profiles, networks)
        if plt is not None:
            from ..curves import MethodColors
            from ..scaling_figure import draw
            name = draw(plt, ph, figure_profile, networks, out_dir, MethodColors(), tag)
            if name:
                figures.append(name)
    if figures:
        out += ["## Figures", "", f"On {figure_profile['name']}:", ""] + \
               [f"- [{f}]({f})" for f in figures] + [""]
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    write_atomic(os.path.join(out_dir, f"scaling{tag}.md"), text)
    sys.stdout.write(text)
    return 0
