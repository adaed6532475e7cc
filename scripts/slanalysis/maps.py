"""Speed-up maps: time-to-target speed-up of each variant over 4-node dense and over 1 node
across network bandwidth x per-step compute (hits.Hit.time), and the table of speed-ups at the
shipped hardware profiles x preset networks (hits.Hit.profile_time)."""
import math

from .formatting import ratio
from .hits import Hit, selection_fraction
from .network import PAPER_TERMS, Network, ring_comm_s, with_link_terms
from .profiles import profile_compute
from .references import variant_references

C_RANGE = (1e-3, 10.0)       # seconds per step (the map's y axis)
B_RANGE = (0.1, 400.0)       # Gbit/s (the x axis)


def logspace(lo, hi, n):
    a, b = math.log10(lo), math.log10(hi)
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def speedup_grid(hit, ref, cs, bs, latency_us, f_hit, f_ref, terms=PAPER_TERMS):
    """[[ref time / hit time for each bandwidth b (Gbit/s)] for each compute c], latency_us per
    hop everywhere, with the link terms (network.LinkTerms)."""
    nets = [with_link_terms(Network(f"{b:g} Gbit/s", b, latency_us), terms) for b in bs]
    return [[ref.time(c, n, f_ref) / hit.time(c, n, f_hit) for n in nets] for c in cs]


def analyse(variants, key, target, ref4=None, ref1=None):
    """(4-node dense, 1-node dense, {variant: Hit}, {variant: selection fraction f}, measured
    dense compute per step)."""
    d4, d1 = variant_references(variants, ref4, ref1)
    c_meas = d4.clocks[0].measured_compute_per_step() if d4 else None
    hits = {v.name: Hit(v, key, target) for v in variants}
    fsel = {v.name: selection_fraction(v, c_meas, hits[v.name]) for v in variants}
    return d4, d1, hits, fsel, c_meas


def comm_per_step(variant, net):
    """Modeled communication seconds per step of the variant's first seed (its whole run)."""
    clk = variant.clocks[0]
    t = clk.last_step()
    _, X, Y = clk.cumulative(t)
    bandwidth, latency = ring_comm_s(X, Y, net)
    return (bandwidth + latency) / t


def profile_rows(model, variants, d4, d1, hits, profiles, networks):
    """Speed-ups at each shipped profile (and its sensitivity band) x network (network.Network,
    e.g. the presets with the measured link terms)."""
    rows = []
    for prof in profiles:
        scales = sorted(set([1.0] + list(prof.get("sensitivity", []))))
        for scale in scales:
            for net in networks:
                name = net.name
                ref4 = hits[d4.name] if d4 else None
                ref1 = hits[d1.name] if d1 else None
                c = profile_compute(prof, d4.clocks[0], scale)[0] if d4 else None
                share = "n/a"
                if d4 and c:
                    comm = comm_per_step(d4, net)
                    share = f"{100 * comm / (c + comm):.0f}%"
                t4 = ref4.profile_time(prof, net, scale) if ref4 and ref4.reached else None
                t1 = ref1.profile_time(prof, net, scale) if ref1 and ref1.reached else None
                for v in variants:
                    h = hits[v.name]
                    if v.nodes == 1 or not h.reached:
                        continue
                    tm = h.profile_time(prof, net, scale)
                    rows.append([model, prof["name"] + (f" x{scale:g}" if scale != 1.0 else ""),
                                 f"{c * 1e3:.2f}" if c else "n/a", name, share, v.name,
                                 f"{tm:.1f}", ratio(t4, tm), ratio(t1, tm)])
    return rows
