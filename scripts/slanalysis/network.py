"""PAPER.md's ring model of communication time: the network parameters and the formula, in
one place.

A run's collectives reduce to two sums over its steps (clock.py recovers them from the log):
  X  ring bytes: 2(N-1)/N * b per all-reduce of b bytes, (N-1) * b per all-gather of b bytes
     per node (the bandwidth term's bytes)
  Y  latency hops: 2(N-1) per all-reduce, (N-1) per all-gather
and the modeled communication time on a network of bandwidth B (Gbit/s) and per-hop latency a
is X * 8 / B + Y * a (ring_comm_s). Measured on a real rate-limited link (issue 29,
results/clock/validation.md) the model gains two terms, fields of Network that default to
PAPER.md's model:
  eta  efficiency: B carries eta B of payload           -> X * 8 / (eta B)
  o    software overhead per hop (MPI + TCP), seconds  -> Y * (a + o)
with_link_terms puts the fitted pair (link_terms reads it from validation.json) on any Network;
the speed-up maps and the target tables use it by default where results/clock/validation.json
exists.
solve_cxy inverts the model the trainer used for its presets, so it changes only when
lib/distributed/ring_network_model.cpp does."""
import json
import math
import os
from collections import namedtuple


class Network(namedtuple("Network", "name gbps latency_us efficiency overhead_us",
                          defaults=(1.0, 0.0))):
    """A network of the ring model: bandwidth in Gbit/s, latency per hop in microseconds, and
    the measured link's efficiency eta and per-hop overhead o (microseconds)."""
    __slots__ = ()


# lib/distributed/ring_network_model.cpp's presets
PRESETS = {n.name: n for n in (Network("1gbe", 1.0, 50.0), Network("10gbe", 10.0, 20.0),
                               Network("ib100", 100.0, 2.0))}


def seconds_per_byte(gbps):
    return 8.0 / (gbps * 1e9)


def ring_comm_s(ring_bytes, hops, net):
    """(bandwidth seconds, latency seconds) of X ring bytes and Y hops on Network net."""
    return (ring_bytes * seconds_per_byte(net.gbps * net.efficiency),
            hops * (net.latency_us + net.overhead_us) * 1e-6)


class LinkTerms(namedtuple("LinkTerms", "efficiency overhead_us source fitted_on",
                           defaults=(None,))):
    """The fitted (eta, o) of a measured link, where they come from and what they were fitted
    on (e.g. "2-rank runs at 100mbit,1gbit")."""
    __slots__ = ()

    def describe(self):
        if self.source is None:
            return "PAPER.md's ring model (eta 1, no per-hop overhead)"
        on = f", fitted on {self.fitted_on} over TCP" if self.fitted_on else ""
        return (f"the ring model with the link terms measured in {self.source}: eta "
                f"{self.efficiency:.3f}, per-hop overhead {self.overhead_us:.0f} us{on}")


PAPER_TERMS = LinkTerms(1.0, 0.0, None)
DEFAULT_VALIDATION = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "results", "clock", "validation.json")


def link_terms(spec="auto"):
    """spec: "paper" (PAPER.md's model), a validation.json path, or "auto" (the repository's
    results/clock/validation.json when it exists, else paper). Raises ValueError on a file
    without the fitted model."""
    if spec == "paper" or (spec == "auto" and not os.path.isfile(DEFAULT_VALIDATION)):
        return PAPER_TERMS
    path = DEFAULT_VALIDATION if spec == "auto" else spec
    try:
        with open(path) as f:
            model = json.load(f)["model"]
        eta, o = float(model["eta"]), float(model["overhead_s"]) * 1e6
        fitted_on = model.get("fitted_on")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: expected a clock validation (scripts/analyze.py "
                         f"clock-validation) with model.eta and model.overhead_s ({e})")
    if not (0 < eta <= 1) or not (o >= 0) or not math.isfinite(o):
        raise ValueError(f"{path}: model.eta {eta} (want 0 < eta <= 1) / overhead {o} us (want a "
                         f"finite value >= 0) out of range")
    rel = os.path.relpath(path, os.path.dirname(os.path.dirname(DEFAULT_VALIDATION)))
    return LinkTerms(eta, o, path if rel.startswith("..") else os.path.join("results", rel),
                     fitted_on if isinstance(fitted_on, str) else None)


def with_link_terms(net, terms):
    return net._replace(efficiency=terms.efficiency, overhead_us=terms.overhead_us)


def solve_cxy(modeled):
    """modeled: cumulative modeled_time_s {net: s} with all three presets -> (C, X, Y) with
    modeled[k] = C + X * u_k + Y * a_k. None when a preset is missing."""
    try:
        t = {k: float(modeled[k]) for k in PRESETS}
    except (KeyError, TypeError, ValueError):
        return None
    u = {k: seconds_per_byte(n.gbps) for k, n in PRESETS.items()}
    a = {k: n.latency_us * 1e-6 for k, n in PRESETS.items()}
    # subtract the ib100 row: (T1 - T3) = X (u1 - u3) + Y (a1 - a3), (T2 - T3) likewise
    p11, p12, r1 = u["1gbe"] - u["ib100"], a["1gbe"] - a["ib100"], t["1gbe"] - t["ib100"]
    p21, p22, r2 = u["10gbe"] - u["ib100"], a["10gbe"] - a["ib100"], t["10gbe"] - t["ib100"]
    det = p11 * p22 - p12 * p21
    X = (r1 * p22 - p12 * r2) / det
    Y = (p11 * r2 - r1 * p21) / det
    C = t["ib100"] - X * u["ib100"] - Y * a["ib100"]
    # Round-off: hops are integers; X, Y cannot be negative.
    return C, max(0.0, X), max(0.0, round(Y, 6))
