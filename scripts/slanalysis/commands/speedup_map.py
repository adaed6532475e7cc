"""Speed-up maps: time-to-target speed-up of each method over 4-node dense and over 1 node,
across network bandwidth x per-step compute time, from committed logs (no rerun).

Usage: speedup_map.py RESULTS_DIR [--out DIR] [--profile P.json ...] [--metric ce|bleu]
                      [--target-rule plateau|v1|final] [--target-ce X] [--target-bleu X]
                      [--ref4 NAME] [--ref1 NAME] [--only REGEX] [--latency-us 20] [--grid 61]
                      [--no-plot]

In a reproduction-v3 tree (RESULTS_DIR/<model>/plan.json with the budget S) the defaults are
v3's: references and rows are the phase-3 cells (with the v3.1 amendment, the cells at their
lr at S that plan.json names; --only . shows every run) and the target rule is `final` (dev
CE <= 1.05 x 4-node dense's mean final dev CE, v3's principal target); elsewhere `plateau`.

For a run M that first reaches the target at validation step t_M (docs/LOG_FORMAT.md,
"Derived quantities"; slanalysis.hits):

    T_M(c, B) = t_M * c * (1 + f_M)  +  X_M(t_M) * 8 / B  +  Y_M(t_M) * a

  c    per-step compute seconds of one node (the map's y axis, 1 ms .. 10 s)
  B    bandwidth in bit/s (the x axis, 0.1 .. 400 Gbit/s); a = --latency-us per hop; with
       the measured link terms (--link-terms, default results/clock/validation.json when it
       exists) B is eta B and a is a + o (slanalysis.network)
  f_M  selection cost as a fraction of a step's compute, as measured in these logs
       (M's summed compress_s + decompress_s over t_M * the measured compute per step of the
       4-node dense run); 0 for methods that select nothing
  X, Y exact ring bytes and latency hops of steps 1..t_M (slanalysis.clock.RunClock)

speed-up over 4-node dense = T_dense4 / T_M; over 1 node = T_1node / T_M (a 1-node run has
no communication). Runs that differ only by a trailing "-s<seed>" / "-seed<seed>" are seeds
of one variant: a variant reaches the target when every seed does, and its t, X, Y are the
means over seeds (T is linear in them). Shipped profiles (configs/hardware/*.json) are drawn
as horizontal lines at their c for the model (dotted: the profile's sensitivity band), and
the preset networks as vertical lines; speedup-map.md lists the values at those points, with
the selection cost of the profile itself (measured or modeled), as vclock.py computes it.

Figures need matplotlib (Debian: /usr/bin/python3); --no-plot writes only the table.
Exit status: 0 done, 2 bad arguments or no experiments, 1 plotting libraries missing.
"""
import os
import re
import shlex
import sys

from ..experiment import load_experiments
from ..formatting import md_table
from ..maps import B_RANGE, C_RANGE, analyse, logspace, profile_rows
from ..network import PRESETS, with_link_terms
from ..notes import Notes
from ..references import PlanDefaults, variant_references
from ..targets import target_for
from ..variants import group_variants
from .common import (Parser, NON_NEGATIVE, POSITIVE, UsageError, add_link_terms_arg, guarded, link_terms_or_fail,
                     profiles_or_fail, pyplot_unless, results_dir_or_fail, selection_or_fail,
                     validated_experiments_or_fail, wall_selection_note, write_atomic)

PROGRAM = "speedup_map.py"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--out", help="output folder (default RESULTS_DIR/figures)")
    p.add_argument("--profile", action="append", help="hardware profile (repeatable; default "
                   "configs/hardware/*.json)")
    p.add_argument("--metric", choices=("ce", "bleu"), default="ce",
                   help="time to a dev CE target (default) or to a dev BLEU target")
    p.add_argument("--target-rule", choices=("plateau", "v1", "final"),
                   help="plateau (v2's), v1, or final (v3's: x1.05 of 4-node dense's final dev "
                        "CE); default: final in a reproduction-v3 tree, else plateau")
    p.add_argument("--target-ce", type=POSITIVE, help="a fixed dev CE target (instead of --target-rule's)")
    p.add_argument("--target-bleu", type=POSITIVE, help="a fixed dev BLEU target (with --metric bleu)")
    p.add_argument("--latency-us", type=NON_NEGATIVE, default=20.0,
                   help="per-hop latency of the map's networks, microseconds (default 20)")
    p.add_argument("--grid", type=int, default=61, help="points per axis of the map (default 61)")
    add_link_terms_arg(p)
    p.add_argument("--ref4", help="variant name of the 4-node dense reference")
    p.add_argument("--ref1", help="variant name of the 1-node reference")
    p.add_argument("--only", metavar="REGEX", help="rows and curves only for variants whose name "
                   "matches REGEX (the references always)")
    p.add_argument("--no-plot", action="store_true", help="tables only, no figures (no matplotlib needed)")
    p.add_argument("--model", help="only this model type (e.g. transformer)")
    p.add_argument("--tag", default="", help="suffix of the output file names (e.g. -ce4.0)")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def variant_rows(variants, hits, fsel):
    rows = []
    for v in variants:
        h = hits[v.name]
        rows.append([v.name, v.method, str(v.nodes), str(len(v.runs)),
                     f"{h.t:.0f}" if h.reached else "-",
                     ", ".join(str(s) for s in h.seed_steps) or "-",
                     f"{100 * fsel[v.name]:.2f}%", h.why_not() or "reached"])
    return md_table(["variant", "method", "nodes", "seeds", "mean step at target",
                     "steps (per seed)", "selection / dense compute (measured)", "status"], rows)


def run(args, argv, prog):
    results_dir_or_fail(args.results_dir)
    if args.grid < 2:
        raise UsageError(f"--grid {args.grid}: want at least 2 points per axis")
    notes = Notes(prog)
    exps = validated_experiments_or_fail(load_experiments(args.results_dir, notes), args.model,
                                         args.results_dir)
    try:
        only = re.compile(args.only) if args.only else None
    except re.error as e:
        raise UsageError(f"--only {args.only!r}: not a regular expression ({e})")
    selection_or_fail(exps, args.ref4, args.ref1, only, args.results_dir)
    key = "bleu" if args.metric == "bleu" else "dev_ce"
    explicit = args.target_bleu if key == "bleu" else args.target_ce
    profiles = profiles_or_fail(args.profile)
    terms = link_terms_or_fail(args.link_terms)
    cs = logspace(*C_RANGE, args.grid)
    bs = logspace(*B_RANGE, args.grid)
    plt = pyplot_unless(args.no_plot)
    if plt is not None:
        from ..map_figure import draw
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    out = ["# Speed-up maps", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/speedup_map.py"] + argv), "",
           "Virtual clock (scripts/vclock.py): time = t c (1 + f) + X 8 / B + Y a at the first "
           f"validation reaching the target; latency a = {args.latency_us:g} us per hop on the map, "
           "the preset's own latency in the table. Network model: " + terms.describe() +
           ". Profiles: " +
           ", ".join(f"`{os.path.relpath(pr['path'])}` ({pr['name']})" for pr in profiles), ""]
    groups = group_variants(exps)
    out += wall_selection_note(groups)
    figures = []
    for model, variants in groups.items():
        plan = PlanDefaults(args.results_dir, model, variants, args.ref4, args.ref1, only)
        out += [f"## {model}", ""] + plan.preface
        if plan.skip:
            out += [f"({plan.skip})", ""]
            continue
        rule = args.target_rule or ("final" if plan.S is not None else "plateau")
        d4, _ = variant_references(variants, plan.ref4, plan.ref1)
        target, how = target_for(d4, key, rule, explicit)
        if target is None:
            out += [f"(no target: {how})", ""]
            continue
        d4, d1, hits, fsel, c_meas = analyse(variants, key, target, plan.ref4, plan.ref1)
        if plan.no_ref1:
            d1 = None
        variants = plan.shown(variants, d4, d1)
        out += [f"Target: {'dev BLEU >=' if key == 'bleu' else 'dev CE <='} {target:.4f} ({how}). "
                f"References: 4-node dense `{d4.name if d4 else 'none'}`, 1 node "
                f"`{d1.name if d1 else 'none'}`; measured dense compute here "
                f"{(c_meas or 0) * 1e3:.1f} ms/step.", ""]
        out += variant_rows(variants, hits, fsel)
        out += ["", "Speed-ups at the shipped profiles (virtual clock with the profile's c and "
                "selection model; comm share = modeled communication / (c + communication) of a "
                "4-node dense step):", ""]
        prow = profile_rows(model, variants, d4, d1, hits, profiles,
                            [with_link_terms(n, terms) for n in PRESETS.values()])
        out += md_table(["model", "profile", "c [ms]", "network", "comm share of dense step",
                         "variant", "virtual s to target", "vs 4-node dense", "vs 1 node"], prow)
        out += [""]
        if plt is not None:
            figures += draw(plt, model, variants, d4, d1, hits, fsel, profiles, cs, bs,
                            args.latency_us, key, target, how, out_dir, args.tag, terms)
    if figures:
        out += ["## Figures", ""] + [f"- [{f}]({f})" for f in figures] + [""]
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    # One table per (model filter, tag), so per-model runs with the same tag do not overwrite
    # each other's table.
    only = f"-{args.model}" if args.model else ""
    write_atomic(os.path.join(out_dir, f"speedup-map{only}{args.tag}.md"), text)
    sys.stdout.write(text)
    return 0
