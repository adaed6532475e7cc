"""Where a seed Variant reaches a target, and its time there on the virtual clock.

The map formula (speed-up maps: c and B free, selection as a fraction f of c):

    T_M(c, B) = t_M * c * (1 + f_M)  +  X_M(t_M) * 8 / B  +  Y_M(t_M) * a

with t, X, Y the means over seeds (T is linear in them); the profile formula uses each seed's
own clock with the profile's c and selection model and averages the times."""
import os

from .formatting import fmt
from .network import ring_comm_s
from .profiles import profile_compute
from .targets import best_of, first_hit


class Hit:
    """Where a variant reaches a target: mean step and mean (X, Y) over seeds, or why not."""

    def __init__(self, variant, key, target):
        self.variant, self.key, self.target = variant, key, target
        steps, self.missed, self.best = [], [], []
        for run, clock, series in zip(variant.runs, variant.clocks, variant.values(key)):
            s = first_hit(series, key, target)
            if s is None:
                self.missed.append(run.name)
                self.best.append(best_of(series, key))
            else:
                steps.append((s, clock))
        self.reached = not self.missed and bool(steps)
        self.seed_steps = [s for s, _ in steps]
        if self.reached:
            n = len(steps)
            self.t = sum(s for s, _ in steps) / n
            xs = [c.cumulative(s) for s, c in steps]
            self.X = sum(x[1] for x in xs) / n
            self.Y = sum(x[2] for x in xs) / n
            self.pairs = steps

    def why_not(self):
        if self.reached:
            return ""
        parts = []
        for name, (v, s) in zip(self.missed, self.best):
            parts.append(f"{os.path.basename(name)}: best {fmt(v, 3 if self.key != 'bleu' else 2)} "
                         f"at step {s}" if v is not None else f"{os.path.basename(name)}: no validation")
        n = len(self.variant.runs)
        return f"not reached by {len(self.missed)}/{n} seed(s) ({'; '.join(parts)})"

    def time(self, c, net, f_sel):
        """Map formula: t c (1 + f) + X * 8 / B + Y a (nodes > 1) on network.Network net."""
        comm = 0.0
        if (self.variant.nodes or 1) > 1:
            bandwidth, latency = ring_comm_s(self.X, self.Y, net)
            comm = bandwidth + latency
        return self.t * c * (1.0 + f_sel) + comm

    def profile_times(self, profile, net, scale=1.0):
        """Virtual-clock time at the hit of each seed, with the profile's own c and selection."""
        tot = []
        for s, clock in self.pairs:
            c, _ = profile_compute(profile, clock, scale)
            tot.append(clock.time(s, c, net, profile["selection"])[0])
        return tot

    def profile_time(self, profile, net, scale=1.0):
        """The mean over seeds of profile_times."""
        tot = self.profile_times(profile, net, scale)
        return sum(tot) / len(tot)


def selection_fraction(variant, c_measured, hit):
    """f: measured selection seconds per step / measured dense compute per step."""
    if not hit.reached or not c_measured:
        return 0.0
    fs = []
    for s, clock in hit.pairs:
        sel = clock.selection_s(s, {"mode": "measured"})
        fs.append(sel / (s * c_measured))
    return sum(fs) / len(fs)
