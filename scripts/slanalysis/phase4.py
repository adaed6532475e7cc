"""Phase 4 of reproduction v3, read as configs/repro-v3/README.md "Phase 4's readings" fixed it
before any phase-4 run: scaling 1 -> 2 -> 4 nodes (dense, sparse+partial K500) and the drop
ratio (sparse+partial at rho 0.9 / 0.99 / 0.999). Descriptive: no verdict.

Every point is its cell's seed 1 (phase 4 runs one seed). The target is claim 3's: x1.05 of
the mean over 4-node dense's complete seeds of the final dev CE (claims_v3's Cell values); a
run reaches it at the update interpolated between validations, and its time there is its
virtual clock (target_sweep.SeedCurve) on each profile x network.

Run names follow scripts/repro_v3.py phase_scaling: the 2-node runs are the 4-node cell's
name with `-4node-` -> `-2node-`, the drop-ratio runs the sparse+partial cell's with
`-rho<rho>` after `k500` (plan.json names the cells: references.plan_cells)."""
import os

from .claims_v3 import CLAIM3_FACTOR, DENSE4, EQ_TOKENS, EQ_UPDATES, LOCAL, Cell
from .formatting import human_bytes, md_table
from .references import plan_budget, plan_cells, read_plan
from .target_sweep import INF, SeedCurve, profile_tag, speedup
from .targets import final_at_end
from .variants import Variant, finished, group_variants, variant_name

PARTIAL = LOCAL[0]
METHODS = ((DENSE4, "dense"), (PARTIAL, "sparse+partial"))
RHOS = ("0.9", "0.99", "0.999")
MAIN_RHO = "0.99"


class Point:
    """Seed 1 of one run name: its state, final values and, once finished, its curve."""

    def __init__(self, label, name, run):
        self.label, self.name, self.run = label, name, run
        self.curve = None
        self.final = self.bleu = self.bytes = None
        if run is None:
            self.state = "not run yet"
        elif not finished(run):
            self.state = f"running (update {run.steps})"
        else:
            self.state = run.status
            one = Variant(name, [run])   # its clock and validations, as the speed-up tables read them
            series = one.values("dev_ce")[0]
            self.curve = SeedCurve(series, one.clocks[0], "dev_ce")
            self.final = final_at_end(series, run.steps)
            self.bleu, self.bytes = run.test_bleu, run.bytes_per_step

    def step(self, target):
        return None if self.curve is None else self.curve.step(target)

    def time(self, target, profile, network):
        """Virtual seconds to the target; None while unfinished, INF when never reached."""
        return None if self.curve is None else self.curve.time(target, profile, network)


class Phase4:
    """One model's phase-4 points. exps: every Experiment of the tree (experiment.load_experiments)."""

    def __init__(self, results_dir, model, exps, factor=CLAIM3_FACTOR):
        self.model, self.factor, self.target, self.why = model, factor, None, ""
        self.scaling, self.rho, self.one_node_updates = [], [], None
        plan = read_plan(results_dir, model)
        self.S = plan_budget(plan)
        if self.S is None:
            self.why = f"no budget S in {model}/plan.json yet"
            return
        names, open_ = plan_cells(plan, model, (DENSE4, PARTIAL, EQ_TOKENS, EQ_UPDATES))
        if open_:
            self.why = "lr at S not chosen yet for " + ", ".join(f"`{c}`" for c in sorted(open_))
            return
        runs = {os.path.abspath(e.path): e for e in exps}

        def point(label, name):
            return Point(label, name, runs.get(os.path.abspath(
                os.path.join(results_dir, model, f"{name}-s1"))))

        mine = [e for e in exps if e.model == model and variant_name(e.name) == names[DENSE4]]
        variant = (group_variants(mine).get(model) or [None])[0]
        dense = Cell(model, DENSE4, self.S, (1, 2, 3), results_dir, runs, variant, names[DENSE4])
        finals = [dense.value(s, "final_dev_ce") for s in dense.done()]
        finals = [x for x in finals if x is not None]
        if not finals:
            self.why = f"`{names[DENSE4]}` has no complete seed yet: no target"
        else:
            self.dense_seeds = len(finals)
            self.target = factor * sum(finals) / len(finals)
        self.one_node_updates = point("1 node, equal updates (S)", names[EQ_UPDATES])
        one = point("1 node, equal tokens (4S)", names[EQ_TOKENS])
        self.scaling = [(1, "both", one)]
        for cell, label in METHODS:
            two = names[cell].replace(f"{model}-4node-", f"{model}-2node-", 1)
            self.scaling += [(2, label, point(label, two)), (4, label, point(label, names[cell]))]
        self.scaling.sort(key=lambda x: (x[0], x[1]))
        for rho in RHOS:
            name = names[PARTIAL] if rho == MAIN_RHO else names[PARTIAL].replace(
                f"-{PARTIAL}-", f"-{PARTIAL}-rho{rho}-", 1)
            self.rho.append((rho, point(f"sparse+partial rho {rho}", name)))
        self.dense4 = next(p for n, lab, p in self.scaling if n == 4 and lab == "dense")

    def one(self):
        return self.scaling[0][2]

    def over(self, ref, p, profile, network):
        """Speed-up of p over ref to the target (None while either is unfinished)."""
        t_ref, t = ref.time(self.target, profile, network), p.time(self.target, profile, network)
        if t_ref is None or t is None:
            return None
        return speedup(t_ref, t)


def fmt_steps(p, target):
    if p.curve is None:
        return p.state
    if target is None:
        return "no target yet"
    s = p.step(target)
    return "not reached" if s is None else f"{s:.0f}"


def fmt_value(x, digits):
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_speedup(x, nodes=None):
    """'3.12x' (with the parallel efficiency speed-up / nodes when nodes is given)."""
    if x is None:
        return "pending"
    if x == INF:
        return "reference not reached"
    if x == 0.0:
        return "not reached"
    return f"{x:.2f}x" + (f" ({x / nodes:.2f})" if nodes else "")


def fmt_hours(t):
    if t is None:
        return "pending"
    return "not reached" if t == INF else f"{t / 3600:.3g} h"


def lines(ph, profiles, networks):
    """Markdown of one model's phase 4."""
    out = [f"## {ph.model}", ""]
    if ph.why and ph.target is None and not ph.scaling:
        return out + [f"({ph.why})", ""]
    places = [(pr, net) for pr in profiles for net in networks]
    heads = [f"{profile_tag(pr)}, {net.name}" for pr, net in places]
    if ph.target is None:
        out += [f"(no target: {ph.why})", ""]
    else:
        out += [f"Budget S = {ph.S}; target dev CE x{ph.factor:g} of 4-node dense's mean final "
                f"over its {ph.dense_seeds} complete seed(s) = {ph.target:.4f}. Seed 1 of every "
                "run; no intervals.", ""]
    tgt = ph.target
    head = ["nodes", "method", "run", "final dev CE", "test BLEU", "updates to target"]
    rows = [["1", ph.one_node_updates.label, f"`{ph.one_node_updates.name}-s1`",
             fmt_value(ph.one_node_updates.final, 4), fmt_value(ph.one_node_updates.bleu, 2),
             fmt_steps(ph.one_node_updates, tgt)]]
    rows += [[str(n), p.label, f"`{p.name}-s1`", fmt_value(p.final, 4), fmt_value(p.bleu, 2),
              fmt_steps(p, tgt)] for n, _, p in ph.scaling]
    out += [f"### {ph.model}: scaling 1 -> 2 -> 4 nodes", ""] + md_table(head, rows) + [""]
    if ph.target is not None:
        out += ["Time to target on the virtual clock (hours), and the speed-up over one node "
                "(equal tokens) with the parallel efficiency speed-up / N in brackets:", ""]
        rows = [[str(n), p.label] + [fmt_hours(p.time(tgt, pr, net)) for pr, net in places]
                for n, _, p in ph.scaling]
        out += md_table(["nodes", "method"] + heads, rows) + [""]
        rows = [[str(n), p.label] + [fmt_speedup(ph.over(ph.one(), p, pr, net), n)
                                     for pr, net in places]
                for n, _, p in ph.scaling if n > 1]
        out += md_table(["nodes", "method"] + heads, rows) + [""]
    head = ["rho", "run", "bytes per update (one node)", "final dev CE", "test BLEU",
            "updates to target"]
    rows = [[rho, f"`{p.name}-s1`", "-" if p.bytes is None else human_bytes(p.bytes),
             fmt_value(p.final, 4), fmt_value(p.bleu, 2), fmt_steps(p, tgt)] for rho, p in ph.rho]
    out += [f"### {ph.model}: drop ratio (sparse+partial K500, 4 nodes)", ""] + md_table(head, rows) + [""]
    if ph.target is not None:
        out += [f"Speed-up over 4-node dense's seed 1 (`{ph.dense4.name}-s1`) to the target:", ""]
        rows = [[rho] + [fmt_speedup(ph.over(ph.dense4, p, pr, net)) for pr, net in places]
                for rho, p in ph.rho]
        out += md_table(["rho"] + heads, rows) + [""]
    return out
