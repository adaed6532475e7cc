#!/usr/bin/env python3
"""The numbers behind each claim of ../shared/PAPER.md, from run-experiment result directories.

Usage: claims.py RESULTS_DIR [--network 1gbe] [--target-bleu X] [--target-ce Y] [--out FILE]
                 [--v2 [--profile configs/hardware/P.json ...] [--ce-margin 0.02]
                       [--bleu-fraction 0.95]]

Reads the same JSON files as plot.py (it reuses plot.py's reader), groups the runs by model
type and prints markdown: claim 1 (sparse-only vs dense), claim 2 (sparse+local vs
sparse-only), claim 3 (modeled time to a target dev BLEU and dev cross-entropy: speed-up vs
4-node dense and vs 1 node)
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
import argparse
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (the reader of docs/LOG_FORMAT.md files)

SPARSE_LOCAL = ("sparse+sum", "sparse+partial", "sparse+error")


def last(rows, key):
    vals = [plot.number(r.get(key)) for r in rows]
    vals = [v for v in vals if v is not None]
    return vals[-1] if vals else None


def tail_mean(rows, key, fraction=0.1):
    """Mean of key over the last `fraction` of the logged steps (train loss is noisy)."""
    vals = [plot.number(r.get(key)) for r in rows]
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    n = max(1, int(len(vals) * fraction))
    return sum(vals[-n:]) / n


def pct(new, ref):
    if new is None or ref is None or ref == 0:
        return "n/a"
    return f"{100.0 * (new - ref) / abs(ref):+.1f}%"


def find(group, nodes, method):
    """The plain run of a kind: the shortest name, so controls such as `...-dense-2xS-s1` or
    `...-dense-lrx2-s1` are not taken for the reference."""
    runs = [e for e in group if e.nodes == nodes and e.method == method]
    return min(runs, key=lambda e: (len(e.name), e.name)) if runs else None


def quality_row(e, ref):
    """experiment | test BLEU (vs ref) | best dev BLEU | last dev CE | train loss (last 10%)."""
    f = plot.fmt
    test = f"{f(e.test_bleu)} ({pct(e.test_bleu, ref.test_bleu) if ref else 'n/a'})"
    ce = last(e.valid, "dev_ce")
    ref_ce = last(ref.valid, "dev_ce") if ref else None
    return [e.name, e.method, str(e.nodes), test, f(e.best_bleu), f"{f(ce, 3)} ({pct(ce, ref_ce)})",
            f(tail_mean(e.log, "train_loss"), 3)]


QUALITY_HEAD = ["experiment", "method", "nodes", "test BLEU (vs reference)", "best dev BLEU",
                "last dev CE (vs reference)", "train loss, last 10% of steps"]


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def claim1(model, group):
    dense, sparse = find(group, 4, "dense"), find(group, 4, "sparse")
    out = [f"### {model}", ""]
    if not dense or not sparse:
        return out + ["(needs a 4-node dense and a 4-node sparse run)", ""]
    return out + table(QUALITY_HEAD, [quality_row(dense, dense), quality_row(sparse, dense)]) + [""]


def claim2(model, group):
    sparse, dense = find(group, 4, "sparse"), find(group, 4, "dense")
    runs = [e for e in group if e.nodes == 4 and e.method in SPARSE_LOCAL + ("fedavg",)]
    out = [f"### {model} (reference: 4-node sparse-only)", ""]
    if not sparse or not runs:
        return out + ["(needs a 4-node sparse run and sparse+local runs)", ""]
    rows = [quality_row(e, sparse) for e in [sparse] + runs]
    if dense:
        rows.insert(0, quality_row(dense, sparse))
    return out + table(QUALITY_HEAD, rows) + [""]


class Target:
    """A quality level a validation reaches: dev BLEU >= value, or dev CE <= value."""

    def __init__(self, key, value, how):
        self.key, self.value, self.how = key, value, how

    def label(self):
        sign = ">=" if self.key == "bleu" else "<="
        name = "dev BLEU" if self.key == "bleu" else "dev CE"
        return f"{name} {sign} {plot.fmt(self.value, 2 if self.key == 'bleu' else 3)} ({self.how})"

    def first(self, e):
        """The first validation row of e that reaches the target, or None."""
        for v in e.valid:
            x = plot.number(v.get(self.key))
            if x is not None and (x >= self.value if self.key == "bleu" else x <= self.value):
                return v
        return None


def modeled_at(row, net):
    m = row.get("modeled_time_s") if row else None
    return plot.number(m.get(net)) if isinstance(m, dict) else None


def claim3(model, group, target, networks):
    one, dense4 = find(group, 1, "dense"), find(group, 4, "dense")
    out = [f"### {model}: time to {target.label()}", ""]
    head = ["experiment", "method", "nodes", "steps to target", "wall s to target"]
    for net in networks:
        head += [f"modeled s ({net})", f"vs 4-node dense ({net})", f"vs 1 node ({net})"]
    ref4 = target.first(dense4) if dense4 else None
    ref1 = target.first(one) if one else None
    rows = []
    for e in sorted(group, key=lambda e: (e.nodes or 0, e.method)):
        hit = target.first(e)
        row = [e.name, e.method, str(e.nodes), "not reached" if hit is None else str(hit.get("step")),
               "-" if hit is None else plot.fmt(plot.number(hit.get("wall_s")), 1)]
        for net in networks:
            mine = modeled_at(hit, net)
            row += ["-" if not mine else plot.fmt(mine, 1),
                    plot.ratio(modeled_at(ref4, net), mine), plot.ratio(modeled_at(ref1, net), mine)]
        rows.append(row)
    out += table(head, rows)
    out += ["", "Modeled time = measured compute of the slowest node + PAPER.md's ring formulas "
            "on the exact bytes; speed-up = reference's modeled time / this run's.", ""]
    return out


def claim4(model, group):
    out = [f"### {model}", ""]
    rows = []
    for e in (e for e in group if (e.nodes or 0) > 1):  # one node has nothing to diverge from
        points = [r for r in e.log if plot.number(r.get("divergence")) is not None]
        if not points:
            continue
        before = [plot.number(r["divergence"]) for r in points]
        after = [plot.number(r.get("divergence_after")) for r in points]
        after = [a for a in after if a is not None]
        rows.append([e.name, e.method, str(len(points)),
                     ", ".join(f"{r.get('step')}: {plot.fmt(b, 4)}" for r, b in zip(points, before)),
                     plot.fmt(max(after), 6) if after else "n/a"])
    if not rows:
        return out + ["(no run logged an averaging step)", ""]
    head = ["experiment", "method", "averaging steps", "divergence before averaging (step: value)",
            "max divergence after"]
    return out + table(head, rows) + ["", "Divergence = mean over nodes n of the L2 norm "
                                      "of theta_n - mean_m theta_m.", ""]


def mean_sd(xs, digits=3):
    """'m +- sd (n)' over seeds; sd is the sample standard deviation (n - 1)."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    if len(xs) == 1:
        return f"{xs[0]:.{digits}f} (n=1)"
    return f"{statistics.mean(xs):.{digits}f} +- {statistics.stdev(xs):.{digits}f} (n={len(xs)})"


def plateau_control(d4, variants):
    """The suite's `<d4>-2xS` run: 4-node dense given twice the updates. If its last dev CE is
    within 1% of the S run's, more updates would not have moved the plateau."""
    ctl = next((v for v in variants if v.name == d4.name + "-2xS"), None)
    if ctl is None:
        return [f"(no `{d4.name}-2xS` run: the budget S is not checked against a longer run)", ""]
    mine = [s[-1][1] for s in d4.values("dev_ce") if s]
    theirs = [s[-1][1] for s in ctl.values("dev_ce") if s]
    if not mine or not theirs or ctl.steps < 2 * d4.steps:
        return [f"`{ctl.name}` is not finished ({ctl.steps} of {2 * d4.steps} updates): the budget "
                "check waits for it.", ""]
    a, b = statistics.mean(mine), statistics.mean(theirs)
    rel = (b - a) / a
    verdict = ("S is enough (< 1%)" if abs(rel) < 0.01
               else "S is NOT enough: more updates still lower dev CE by >= 1%")
    return [f"Budget check: `{ctl.name}` ({ctl.steps} updates) ends at dev CE {b:.3f} vs "
            f"{a:.3f} after {d4.steps} ({100 * rel:+.2f}%) -> {verdict}.", ""]


def v2_sections(exps, args):
    import speedup_map
    import vclock
    profiles = speedup_map.load_profiles(args.profile)
    out = ["## v2: variants over seeds (mean +- sd)", ""]
    groups = speedup_map.group_variants([e for e in exps if e.valid])
    for model, variants in groups.items():
        rows = []
        for v in variants:
            ce = v.values("dev_ce")
            bl = v.values("bleu")
            rows.append([v.name, v.method, str(v.nodes), str(len(v.runs)), str(v.steps),
                         mean_sd([s[-1][1] if s else None for s in ce]),
                         mean_sd([speedup_map.best_of(s, "dev_ce")[0] for s in ce]),
                         mean_sd([speedup_map.best_of(s, "bleu")[0] for s in bl], 2),
                         mean_sd([r.test_bleu for r in v.runs], 2)])
        out += [f"### {model}", ""] + table(
            ["variant", "method", "nodes", "seeds", "steps", "last dev CE", "best dev CE",
             "best dev BLEU", "test BLEU"], rows) + [""]
        d4, d1 = speedup_map.references(variants)
        if d4 is None:
            out += ["(no 4-node dense variant: no plateau, no targets)", ""]
            continue
        p_ce, ch = speedup_map.plateau(d4, "dev_ce")
        p_bl, _ = speedup_map.plateau(d4, "bleu")
        flat = ch is not None and abs(ch) < 0.01
        out += [f"Plateau of `{d4.name}` (mean over its last 20% of validations, mean over "
                f"seeds): dev CE {plot.fmt(p_ce, 3)}, dev BLEU {plot.fmt(p_bl, 2)}; relative "
                f"change of dev CE over that window {'n/a' if ch is None else f'{100 * ch:+.2f}%'}"
                f" -> {'plateaued (< 1%)' if flat else 'NOT plateaued (>= 1%)'}.", ""]
        out += plateau_control(d4, variants)
        for key, digits in (("dev_ce", 3), ("bleu", 2)):
            target, how = speedup_map.target_for(d4, key, "plateau", None, args.ce_margin,
                                                 args.bleu_fraction)
            if target is None:
                continue
            sign = "<=" if key == "dev_ce" else ">="
            label = "dev CE" if key == "dev_ce" else "dev BLEU"
            out += [f"#### {model}: {label} {sign} {target:.{digits}f} ({how})", ""]
            hits = {v.name: speedup_map.Hit(v, key, target) for v in variants}
            hd4 = hits[d4.name]
            if hd4.seed_steps:
                frac = [s / d4.steps for s in hd4.seed_steps]
                out += [f"4-node dense reaches it at step(s) {', '.join(map(str, hd4.seed_steps))}"
                        f" of {d4.steps} ({', '.join(f'{100 * f:.0f}%' for f in frac)} of its run).", ""]
            rows = []
            for v in variants:
                h = hits[v.name]
                rows.append([v.name, str(len(v.runs)),
                             mean_sd([float(s) for s in h.seed_steps], 0) if h.seed_steps else "-",
                             "reached by every seed" if h.reached else h.why_not()])
            out += table(["variant", "seeds", "steps to target", "status"], rows) + [""]
            head = ["profile", "network", "variant", "virtual s to target", "vs 4-node dense",
                    "vs 1 node"]
            rows = []
            for prof in profiles:
                for net, (gbps, lat) in vclock.PRESETS.items():
                    ref = {}
                    for r in (d4, d1):
                        if r is not None and hits[r.name].reached:
                            ref[r.name] = hits[r.name].profile_time(prof, gbps, lat)
                    for v in variants:
                        h = hits[v.name]
                        if not h.reached:
                            continue
                        per_seed = [clock.time(s, vclock.profile_compute(prof, clock)[0], gbps, lat,
                                               prof["selection"])[0] for s, clock in h.pairs]
                        tm = sum(per_seed) / len(per_seed)
                        rows.append([prof["name"], net, v.name, mean_sd(per_seed, 1),
                                     plot.ratio(ref.get(d4.name), tm),
                                     plot.ratio(ref.get(d1.name) if d1 else None, tm)])
            out += table(head, rows) + ["", "Virtual time = t c + SEL(t) + X(t) 8/B + Y(t) a "
                                        "(scripts/vclock.py) at the first validation reaching the "
                                        "target; speed-up = ratio of the means over seeds.", ""]
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--network", action="append",
                   help="network of modeled time (repeatable; default: 1gbe and 10gbe)")
    p.add_argument("--target-bleu", type=float,
                   help="target dev BLEU (default: 90%% of the best dev BLEU of the 4-node "
                        "dense run of the same model type)")
    p.add_argument("--target-ce", type=float,
                   help="target dev cross-entropy (default: 110%% of the last dev CE of the "
                        "4-node dense run of the same model type)")
    p.add_argument("--out", help="write the markdown here too (atomically)")
    p.add_argument("--v2", action="store_true", help="add the seed / plateau / virtual-clock "
                   "tables of the reproduction-v2 suite")
    p.add_argument("--profile", action="append", help="hardware profile for --v2 (repeatable; "
                   "default configs/hardware/*.json)")
    p.add_argument("--ce-margin", type=float, default=0.02)
    p.add_argument("--bleu-fraction", type=float, default=0.95)
    args = p.parse_args(argv)
    networks = args.network or ["1gbe", "10gbe"]
    if not os.path.isdir(args.results_dir):
        print(f"claims.py: error: {args.results_dir}: not a directory", file=sys.stderr)
        return 2
    notes = plot.Notes()
    exps = [plot.Experiment(d, args.results_dir, notes)
            for d in plot.find_experiment_dirs(args.results_dir)]
    if not exps:
        print(f"claims.py: error: no experiments under {args.results_dir}", file=sys.stderr)
        return 2
    by_model = {}
    for e in sorted(exps, key=lambda e: (e.model, e.nodes or 0, e.method, e.name)):
        by_model.setdefault(e.model, []).append(e)
    out = ["# The paper's claims in numbers", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/claims.py"] + argv), ""]
    incomplete = [e.name for e in exps if e.status != "complete"]
    if incomplete:
        out += [f"Incomplete runs (numbers so far): {', '.join(incomplete)}", ""]
    out += ["## Claim 1: sparse-only (gradient dropping) vs dense, 4 nodes", ""]
    for model, group in by_model.items():
        out += claim1(model, group)
    out += ["## Claim 2: sparse + local gradients vs sparse-only, 4 nodes", ""]
    for model, group in by_model.items():
        out += claim2(model, group)
    out += ["## Claim 3: speed to a target quality", ""]
    for model, group in by_model.items():
        dense4 = find(group, 4, "dense")
        targets = []
        if args.target_bleu is not None:
            targets.append(Target("bleu", args.target_bleu, "--target-bleu"))
        elif dense4 and dense4.best_bleu is not None:
            targets.append(Target("bleu", 0.9 * dense4.best_bleu, "90% of 4-node dense's best"))
        final_ce = last(dense4.valid, "dev_ce") if dense4 else None
        if args.target_ce is not None:
            targets.append(Target("dev_ce", args.target_ce, "--target-ce"))
        elif final_ce is not None:
            targets.append(Target("dev_ce", 1.1 * final_ce, "110% of 4-node dense's last"))
        if not targets:
            out += [f"### {model}", "", "(no target: pass --target-bleu or --target-ce)", ""]
        for target in targets:
            out += claim3(model, group, target, networks)
    out += ["## Claim 4: divergence of the node copies at the averaging steps", ""]
    for model, group in by_model.items():
        out += claim4(model, group)
    if args.v2:
        out += v2_sections(exps, args)
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(args.out + ".tmp", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
