"""The virtual (hardware-independent) clock of one run.

    time(t) = t * c  +  SEL(t)  +  X(t) * 8 / B  +  Y(t) * a        (docs/LOG_FORMAT.md)

  c      compute seconds of one step on one node, from a hardware profile (profiles.py)
  SEL(t) gradient-selection seconds summed over steps 1..t: "measured" (the logged
         strategy.compress_s + strategy.decompress_s of node 0, each logged value standing for
         the steps since the previous log line; thread CPU seconds, or wall seconds in logs
         without strategy.compress_clock, an upper bound where simulated nodes share cores),
         modeled from throughputs (P / select_values_per_s + N * pairs / scatter_values_per_s
         per sparse step), or "none" (free: the lower bound, analyze.py speedup-vs-target
         --no-selection-cost)
  X, Y   ring bytes and latency hops of steps 1..t; X * 8 / B + Y * a is network.ring_comm_s

X(t), Y(t) and the measured compute C(t) are recovered EXACTLY (no interpolation) at every
logged or validated step from the cumulative `modeled_time_s` the trainer writes for its three
preset networks (network.solve_cxy). Every step is in those sums, drop-ratio warm-up steps and
averaging steps included. Between those steps X and Y are interpolated linearly, so t may be
fractional (a step-to-target interpolated between validations)."""
from .config import dotted
from .logfiles import number, piecewise_sum
from .network import ring_comm_s, solve_cxy


class RunClock:
    """The exact cumulative quantities of one run (an experiment.Experiment, or anything with
    its config, log, valid and parameters)."""

    def __init__(self, run):
        self.config, self.log, self.valid = run.config or {}, run.log or [], run.valid or []
        self.nodes = int(dotted(self.config, "cluster.nodes") or
                         (self.log[0].get("nodes") if self.log else 1) or 1)
        self.method = self.log[-1].get("method") if self.log else dotted(self.config, "distributed.method")
        self.params = run.parameters
        by_step = {0: (0.0, 0.0, 0.0)}
        tokens = {0: 0.0}
        for r in self.log + self.valid:
            s = number(r.get("step"))
            cxy = solve_cxy(r.get("modeled_time_s")) if isinstance(r.get("modeled_time_s"), dict) else None
            if s is not None and cxy is not None:
                by_step[int(s)] = cxy
            if s is not None and number(r.get("tokens")) is not None:
                tokens[int(s)] = float(r["tokens"])
        self.steps = sorted(by_step)
        self.cxy = by_step
        self.tokens = tokens
        sel, pairs = [], []
        self.sel_clock = None  # "thread_cpu", "device_wall" or "wall" (docs/LOG_FORMAT.md, compress_clock)
        for r in self.log:
            st = r.get("strategy") if isinstance(r.get("strategy"), dict) else {}
            s = number(r.get("step"))
            if s is None:
                continue
            c, d = number(st.get("compress_s")), number(st.get("decompress_s"))
            if c is not None or d is not None:
                sel.append((int(s), (c or 0.0) + (d or 0.0)))
                if isinstance(st.get("compress_clock"), str):
                    self.sel_clock = st["compress_clock"]
            k = number(r.get("pairs"))
            if k is not None:
                pairs.append((int(s), k))
        self.sel_points, self.pair_points = sorted(sel), sorted(pairs)
        if self.sel_points and self.sel_clock is None:
            self.sel_clock = "wall"  # binaries before 2026-12-07 (docs/LOG_FORMAT.md)

    def last_step(self):
        return self.steps[-1]

    def cumulative(self, t):
        """(C, X, Y) after step t: exact at logged/validated steps, linear in between."""
        if t in self.cxy:
            return self.cxy[t]
        lo = max((s for s in self.steps if s < t), default=0)
        hi = min((s for s in self.steps if s > t), default=None)
        if hi is None:  # past the end: extrapolate the last interval's rate
            prev = max((s for s in self.steps if s < lo), default=0)
            hi, lo2 = lo, prev
            if hi == lo2:
                return self.cxy[lo]
            f = (t - lo2) / (hi - lo2)
            a, b = self.cxy[lo2], self.cxy[hi]
        else:
            f = (t - lo) / (hi - lo)
            a, b = self.cxy[lo], self.cxy[hi]
        return tuple(x + f * (y - x) for x, y in zip(a, b))

    def measured_compute_per_step(self):
        t = self.last_step()
        return self.cxy[t][0] / t if t else None

    def tokens_per_node_step(self, t=None):
        t = self.last_step() if t is None else t
        known = [s for s in self.tokens if 0 < s <= t]
        if not known:
            return None
        s = max(known)
        return self.tokens[s] / (s * self.nodes)

    def selection_s(self, t, selection):
        """SEL(t): selection seconds over steps 1..t (0 for methods that select nothing)."""
        mode = selection.get("mode", "measured")
        if not self.sel_points or mode == "none":
            return 0.0
        if mode == "measured":
            return piecewise_sum(self.sel_points, t)
        if mode == "modeled":
            P = number(selection.get("parameters")) or self.parameter_count()
            scan = P / float(selection["select_values_per_s"])
            scatter = float(selection.get("scatter_values_per_s") or selection["select_values_per_s"])
            return t * scan + self.nodes * piecewise_sum(self.pair_points, t) / scatter
        raise ValueError(f"unknown selection mode {mode!r}")

    def parameter_count(self):
        if self.params is None:
            for r in self.log:
                st = r.get("strategy") or {}
                k, rho = number(st.get("k_target")), number(st.get("rho"))
                if k and rho is not None and rho < 1:
                    self.params = k / (1 - rho)
                    break
        return self.params or 0.0

    def time(self, t, c, net, selection=None):
        """Virtual seconds after step t with step compute c on network.Network net.
        Returns (total, {compute, selection, bandwidth, latency})."""
        _, X, Y = self.cumulative(t)
        sel = self.selection_s(t, selection or {"mode": "measured"})
        bandwidth, latency = ring_comm_s(X, Y, net) if self.nodes > 1 else (0.0, 0.0)
        parts = {"compute": t * c, "selection": sel, "bandwidth": bandwidth, "latency": latency}
        return sum(parts.values()), parts
