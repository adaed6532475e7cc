"""The numbers behind each claim of ../shared/PAPER.md, from run-experiment result directories.

Usage: claims.py RESULTS_DIR [--network 1gbe] [--target-bleu X] [--target-ce Y] [--out FILE]
                 [--v2 [--profile configs/hardware/P.json ...] [--ce-margin 0.02]
                       [--bleu-fraction 0.95]]

Reads the same JSON files as plot.py (slanalysis.experiment), groups the runs by model
type and prints markdown: claim 1 (sparse-only vs dense), claim 2 (sparse+local and the other
4-node methods vs sparse-only), claim 3 (modeled time to a target dev BLEU and dev
cross-entropy: speed-up vs 4-node dense and vs 1 node)
and claim 4 (divergence of the node copies at the averaging steps). It states numbers, not
verdicts: REPORT.md reads them. Needs no plotting libraries.

--v2 adds the tables of the reproduction-v2 suite (configs/repro/, issue 13): runs that differ
only by a trailing -s<seed> are one variant; mean +- sd over seeds of the dev/test metrics;
the plateau check of 4-node dense (relative change of dev CE over the last 20% of its run);
targets from that plateau (dev CE <= (1 + ce-margin) x plateau, dev BLEU >= bleu-fraction x
plateau) with the step 4-node dense reaches them; for each variant the steps to each target
(mean +- sd over seeds) or, for seeds that miss, the best value and its step; and the
virtual-clock time to target (scripts/vclock.py) for every hardware profile x preset network,
with speed-ups over 4-node dense and over 1 node.
Exit status: 0 done, 2 bad arguments or no experiments.
"""
import shlex
import sys

from ..claims_v1 import claims_sections
from ..claims_v2 import v2_sections
from ..experiment import by_model, load_experiments
from ..notes import Notes
from ..variants import group_variants
from .common import (Parser, NON_NEGATIVE, POSITIVE, number_type, UsageError, guarded, networks_in_logs_or_fail, profiles_or_fail, results_dir_or_fail,
                     write_atomic)

PROGRAM = "claims.py"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--network", action="append",
                   help="network of modeled time (repeatable; default: 1gbe and 10gbe)")
    p.add_argument("--target-bleu", type=POSITIVE,
                   help="target dev BLEU (default: 90%% of the best dev BLEU of the 4-node "
                        "dense run of the same model type)")
    p.add_argument("--target-ce", type=POSITIVE,
                   help="target dev cross-entropy (default: 110%% of the last dev CE of the "
                        "4-node dense run of the same model type)")
    p.add_argument("--out", help="write the markdown here too (atomically)")
    p.add_argument("--v2", action="store_true", help="add the seed / plateau / virtual-clock "
                   "tables of the reproduction-v2 suite")
    p.add_argument("--profile", action="append", help="hardware profile for --v2 (repeatable; "
                   "default configs/hardware/*.json)")
    p.add_argument("--ce-margin", type=NON_NEGATIVE, default=0.02,
                   help="--v2 targets: dev CE <= (1 + margin) x the plateau (default 0.02)")
    p.add_argument("--bleu-fraction", type=number_type(0, 1, low_open=True), default=0.95,
                   help="--v2 targets: dev BLEU >= fraction x the plateau (default 0.95)")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def run(args, argv, prog):
    networks = args.network or ["1gbe", "10gbe"]
    results_dir_or_fail(args.results_dir)
    notes = Notes(prog)
    exps = load_experiments(args.results_dir, notes)
    if not exps:
        raise UsageError(f"no experiments under {args.results_dir}")
    networks_in_logs_or_fail(exps, networks, args.results_dir)
    profiles = profiles_or_fail(args.profile) if args.v2 else None
    out = ["# The paper's claims in numbers", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/claims.py"] + argv), ""]
    incomplete = [e.name for e in exps if e.status != "complete"]
    if incomplete:
        out += [f"Incomplete runs (numbers so far): {', '.join(incomplete)}", ""]
    out += claims_sections(by_model(exps), args.target_bleu, args.target_ce, networks)
    if args.v2:
        out += v2_sections(group_variants([e for e in exps if e.valid]), profiles,
                           args.ce_margin, args.bleu_fraction)
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.out:
        write_atomic(args.out, text)
    return 0
