"""Seeds of one configuration: runs whose names differ only by a trailing "-s<seed>" or
"-seed<seed>" are one Variant."""
import os
import re

from .clock import RunClock
from .logfiles import number

SEED_RE = re.compile(r"-(?:s|seed)(\d+)$")


def variant_name(name):
    return SEED_RE.sub("", os.path.basename(name))


class Variant:
    """One configuration, all its seeds (experiment.Experiment objects), with their clocks."""

    def __init__(self, name, runs):
        self.name, self.runs = name, runs
        e = runs[0]
        self.model, self.nodes, self.method = e.model, e.nodes, e.method
        self.clocks = [RunClock(r) for r in runs]
        self.steps = max(r.steps for r in runs)

    def values(self, key):
        """[[(step, value)] per seed] of a validation metric."""
        out = []
        for r in self.runs:
            out.append([(int(v["step"]), number(v.get(key))) for v in r.valid
                        if number(v.get(key)) is not None and number(v.get("step"))])
        return out


def diverged(run):
    """The run stopped on a non-finite loss or gradient (train.on_nonfinite = stop)."""
    return "non-finite" in (getattr(run, "reason", "") or "")


def finished(run):
    """Complete, or stopped by divergence: a run that will not go on."""
    return getattr(run, "status", "complete") == "complete" or diverged(run)


def running(variant):
    """No seed of the variant has finished (group_variants keeps unfinished seeds only then):
    its curves stop where the run is now, so "not reached" would be a guess."""
    return not any(finished(r) for r in variant.runs)


def summary_finished(summary):
    """finished() read from a run's summary.json dict (None or {}: not finished)."""
    return bool(summary) and (summary.get("status") == "complete" or
                              "non-finite" in str(summary.get("reason") or ""))


def group_variants(exps):
    """{model: [Variant, ...]} sorted by model and variant name."""
    by = {}
    for e in exps:
        by.setdefault((e.model, variant_name(e.name)), []).append(e)
    out = {}
    for (model, name), runs in sorted(by.items()):
        # A seed still running would pull the variant's means toward its early numbers: once a
        # variant has a finished seed, only finished seeds count (a variant with none keeps
        # its runs, so a running suite still shows numbers so far). A seed stopped on a
        # non-finite value is finished too: its curve up to the stop is what it reached, and
        # leaving it out would average the cell over the seeds that survived.
        done = [r for r in runs if finished(r)]
        out.setdefault(model, []).append(Variant(name, sorted(done or runs, key=lambda r: r.name)))
    return out
