"""PAPER.md's ring model of communication time: the network parameters and the formula, in
one place.

A run's collectives reduce to two sums over its steps (clock.py recovers them from the log):
  X  ring bytes: 2(N-1)/N * b per all-reduce of b bytes, (N-1) * b per all-gather of b bytes
     per node (the bandwidth term's bytes)
  Y  latency hops: 2(N-1) per all-reduce, (N-1) per all-gather
and the modeled communication time on a network of bandwidth B (Gbit/s) and per-hop latency a
is X * 8 / B + Y * a (ring_comm_s). Every caller passes a Network and calls ring_comm_s, so a
fitted per-message overhead or a TCP efficiency factor (issue 29) is one more field of Network
(with a default that leaves the model as it is) and one more term in ring_comm_s, nowhere else.
solve_cxy inverts the model the trainer used for its presets, so it changes only when
lib/distributed/ring_network_model.cpp does."""
from collections import namedtuple


class Network(namedtuple("Network", "name gbps latency_us")):
    """A network of the ring model: bandwidth in Gbit/s, latency per hop in microseconds."""
    __slots__ = ()


# lib/distributed/ring_network_model.cpp's presets
PRESETS = {n.name: n for n in (Network("1gbe", 1.0, 50.0), Network("10gbe", 10.0, 20.0),
                               Network("ib100", 100.0, 2.0))}


def seconds_per_byte(gbps):
    return 8.0 / (gbps * 1e9)


def ring_comm_s(ring_bytes, hops, net):
    """(bandwidth seconds, latency seconds) of X ring bytes and Y hops on Network net."""
    return ring_bytes * seconds_per_byte(net.gbps), hops * net.latency_us * 1e-6


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
