"""Speed-up as a function of the target, with bootstrap intervals over seeds (reproduction v3,
issue 27 item 4).

For a target factor x, the target is x times the 4-node dense reference's final dev CE (or dev
BLEU): the mean over its seeds of the last validation's value ("mean"; at x1.00 the seeds that
end worse than the mean never reach it), or the worst seed's ("worst": the hardest target every
seed of the reference reaches by its end). Each seed reaches the target at
a step interpolated linearly between validations (targets.crossing_step), and its time there is
its virtual clock (clock.RunClock.time) with a hardware profile's c and selection model on a
network. A variant's time is the mean over its seeds (infinite when a seed never reaches the
target); the speed-up over a reference is the reference's time / the variant's.

95% intervals: percentile bootstrap over seeds. Each replicate resamples every variant's seeds
with replacement (bootstrap.named_draws: one stream per variant from the seed and its name, so
runs added to the tree later move no interval); the reference's resampled seeds also move the
target, since the target is defined by them. A replicate in which neither the variant nor the
reference reaches the target has no speed-up and is counted, not used."""
import math
import os

from .bootstrap import interval, named_draws
from .formatting import md_table, mean_sd
from .profiles import profile_compute
from .targets import crossing_step, final_value
from .variants import running

INF = math.inf
DEFAULT_FACTORS = {"dev_ce": (1.00, 1.05, 1.10, 1.15, 1.20, 1.25, 1.30),
                   "bleu": (0.90, 0.92, 0.94, 0.96, 0.98, 1.00)}


class SeedCurve:
    """One seed: its validations of the metric and its clock. Steps and times are memoized
    per target (the bootstrap asks for the same few targets many times)."""

    def __init__(self, series, clock, key):
        self.series, self.clock, self.key = series, clock, key
        self.final = final_value(series)
        self._step, self._c, self._time = {}, {}, {}

    def step(self, target):
        if target not in self._step:
            self._step[target] = crossing_step(self.series, self.key, target)
        return self._step[target]

    def compute(self, profile):
        if profile["path"] not in self._c:
            self._c[profile["path"]] = profile_compute(profile, self.clock)[0]
        return self._c[profile["path"]]

    def time(self, target, profile, network):
        """Virtual seconds at step(target) on network.Network network; inf = never."""
        k = (target, profile["path"], network)
        if k not in self._time:
            t = self.step(target)
            self._time[k] = INF if t is None else self.clock.time(
                t, self.compute(profile), network, profile["selection"])[0]
        return self._time[k]


def mean_time(curves, idx, target, profile, network):
    ts = [curves[i].time(target, profile, network) for i in idx]
    return INF if INF in ts else sum(ts) / len(ts)


def speedup(t_ref, t):
    """t_ref / t; 0 when only the variant never reaches the target, inf when only the
    reference never does, None when neither does."""
    if t == INF:
        return None if t_ref == INF else 0.0
    return INF if t_ref == INF else t_ref / t


class Cell:
    """One speed-up: the point estimate on the seeds as they are, its interval, and how many
    replicates had none."""

    def __init__(self, t_ref, t, low, high, undefined, reps, seeds=2):
        self.t_ref, self.t = t_ref, t
        self.point = speedup(t_ref, t)
        # one seed of the variant: the bootstrap resamples nothing of it, so no interval is shown
        self.seeds = seeds
        self.low, self.high = (low, high) if seeds > 1 else (None, None)
        self.undefined, self.reps = undefined, reps


class Sweep:
    """Speed-ups of every variant over a reference at each target factor, per profile and
    network. variants: one model's seed variants (variants.Variant) including d4 (the 4-node
    dense reference that defines the targets)."""

    def __init__(self, variants, key, d4, reps=1000, seed=1, level=0.95, reference="mean"):
        if reference not in ("mean", "worst"):
            raise ValueError(f"reference {reference!r}: want mean or worst")
        self.variants, self.key, self.d4, self.reference = variants, key, d4, reference
        self.reps, self.seed, self.level = reps, seed, level
        self.pos = {v.name: i for i, v in enumerate(variants)}
        self.curves = {v.name: [SeedCurve(s, c, key) for s, c in zip(v.values(key), v.clocks)]
                       for v in variants}
        self.draws = named_draws([(v.name, len(v.runs)) for v in variants], reps, seed)
        self.finals = [c.final for c in self.curves[d4.name]]
        self._cells = {}

    def ok(self):
        """'' when the reference has finished and has a final value in every seed, else why not."""
        if running(self.d4):
            return f"`{self.d4.name}` has not finished yet (update {self.d4.steps})"
        if None in self.finals:
            return f"`{self.d4.name}`: a seed without validations of {self.key}"
        return ""

    def reference_value(self, idx=None):
        """The reference's final value over its seeds idx (default all): mean or worst."""
        xs = [self.finals[i] for i in (range(len(self.finals)) if idx is None else idx)]
        if self.reference == "worst":
            return max(xs) if self.key == "dev_ce" else min(xs)
        return sum(xs) / len(xs)

    def target(self, factor, idx=None):
        return factor * self.reference_value(idx)

    def steps(self, factor, variant):
        """Per seed, the interpolated step at which it reaches the point target (None = never)."""
        target = self.target(factor)
        return [c.step(target) for c in self.curves[variant.name]]

    def cell(self, factor, profile, network, variant, ref):
        """The speed-up of variant over ref at factor x the reference value (memoized)."""
        k = (factor, profile["path"], network, variant.name, ref.name)
        if k not in self._cells:
            self._cells[k] = self._cell(factor, profile, network, variant, ref)
        return self._cells[k]

    def _cell(self, factor, profile, network, variant, ref):
        mine, theirs = self.curves[variant.name], self.curves[ref.name]
        target = self.target(factor)
        t_ref = mean_time(theirs, range(len(theirs)), target, profile, network)
        t = mean_time(mine, range(len(mine)), target, profile, network)
        values = []
        p4, pr, pv = self.pos[self.d4.name], self.pos[ref.name], self.pos[variant.name]
        for rep in self.draws:
            tb = self.target(factor, rep[p4])
            values.append(speedup(mean_time(theirs, rep[pr], tb, profile, network),
                                  mean_time(mine, rep[pv], tb, profile, network)))
        low, high, undefined = interval(values, self.level)
        return Cell(t_ref, t, low, high, undefined, self.reps, len(mine))


def fmt_bound(x):
    return "inf" if x == INF else f"{x:.2f}"


def cell_text(cell):
    if cell.t == INF:
        return "not reached"
    if cell.t_ref == INF:
        return "reference not reached"
    text = f"{cell.point:.2f}x"
    if cell.low is not None:
        text += f" [{fmt_bound(cell.low)}, {fmt_bound(cell.high)}]"
    if cell.undefined:
        text += f" ({cell.undefined} of {cell.reps} undefined)"
    return text


def steps_text(steps):
    missed = sum(s is None for s in steps)
    return f"missed by {missed}/{len(steps)}" if missed else mean_sd(steps, 0)


def profile_tag(prof):
    """A profile's short name in a table header: its file's name without .json (the long name
    is in the sections below)."""
    path = prof.get("path") or prof.get("name", "?")
    return os.path.splitext(os.path.basename(path))[0]


def factor_label(f):
    return f"x{f:.2f}" if round(f, 2) == f else f"x{f:g}"


def factor_head(factors):
    return [factor_label(f) for f in factors]


def sweep_lines(model, sweep, factors, profiles, networks, d1, shown, preface=(), glance=None):
    """Markdown of one model: the reference values and targets, the interpolated steps to each
    target, with a `glance` factor per reference one table of the speed-ups at that target on
    every profile x network, then per profile x network x reference the speed-ups at every
    target with their intervals. shown: the variants that get rows (a reference never gets a
    row against itself); preface: lines right under the model's heading."""
    d4, key = sweep.d4, sweep.key
    label = "dev CE" if key == "dev_ce" else "dev BLEU"
    out = [f"## {model}", ""] + list(preface)
    why = sweep.ok()
    if why:
        return out + [f"(no targets: {why})", ""]
    finals = ", ".join(f"{x:.4f}" for x in sweep.finals)
    out += [f"Reference `{d4.name}` ({len(d4.runs)} seed(s)): final {label} "
            f"{sweep.reference_value():.4f} ({sweep.reference} of its seeds' {finals}); 1-node "
            f"reference `{d1.name if d1 else 'none'}`.", "",
            "Targets: " + ", ".join(f"{factor_label(f)} = {sweep.target(f):.4f}" for f in factors), "",
            "Steps to target (interpolated between validations; mean +- sd over seeds):", ""]
    if any(len(v.runs) < 2 for v in shown):
        out[-2:-2] = ["A variant of one seed gets a point estimate and no interval (the bootstrap "
                      "has none of its seeds to resample).", ""]
    def now(v):  # a variant none of whose seeds has finished: no steps or speed-ups yet
        return f"running (update {v.steps})"
    rows = [[v.name, v.method, str(v.nodes), str(len(v.runs))] +
            ([now(v)] * len(factors) if running(v) else [steps_text(sweep.steps(f, v)) for f in factors])
            for v in shown]
    out += md_table(["variant", "method", "nodes", "seeds"] + factor_head(factors), rows) + [""]
    if glance:
        places = [(prof, net) for prof in profiles for net in networks]
        for ref, title in ((d4, "4-node dense"), (d1, "1 node")):
            if ref is None:
                continue
            out += [f"### {model} at a glance: speed-up over {title} (`{ref.name}`) at "
                    f"{factor_label(glance)} ({label} {sweep.target(glance):.4f}), every profile "
                    "and network", ""]
            rows = [[v.name, v.method, str(v.nodes), str(len(v.runs))] +
                    ([now(v)] * len(places) if running(v) else
                     [cell_text(sweep.cell(glance, prof, net, v, ref)) for prof, net in places])
                    for v in shown if v is not ref]
            out += md_table(["variant", "method", "nodes", "seeds"] +
                            [f"{profile_tag(prof)}, {net.name}" for prof, net in places], rows) + [""]
    for prof in profiles:
        for net in networks:
            for ref, title in ((d4, "4-node dense"), (d1, "1 node")):
                if ref is None:
                    continue
                out += [f"### {model}: speed-up over {title} (`{ref.name}`), {prof['name']}, "
                        f"{net.name}", ""]
                rows = [[v.name, v.method, str(v.nodes), str(len(v.runs))] +
                        ([now(v)] * len(factors) if running(v) else
                         [cell_text(sweep.cell(f, prof, net, v, ref)) for f in factors])
                        for v in shown if v is not ref]
                out += md_table(["variant", "method", "nodes", "seeds"] + factor_head(factors),
                                rows) + [""]
    return out
