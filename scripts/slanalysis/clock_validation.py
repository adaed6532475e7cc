"""The clock, measured (issue 29): MPI runs over a rate-limited link (scripts/netem-cluster.sh,
scripts/clock-validation.sh) against the ring model, and the model's fitted terms.

The emulated network: the N ranks share the loopback's one queue of rate R, so a collective in
which every node sends b bytes takes N b / R; the ring model (network.ring_comm_s) describes it
with bandwidth R / N per node. Each logged step carries its exact ring bytes X and latency
hops Y (network.solve_cxy on the step's modeled_comm_s), its measured communication
comm_min_s (the node that arrived last, so no other node's compute is in it) and comm_s (the
slowest node).

Model, per step:   t = X * 8 / (eta * B)  +  Y * (a + o)
  eta  efficiency: the share of the link's rate that carries payload (TCP/IP and MPI headers,
       ACKs, the stack's pacing); 1 in PAPER.md's model
  o    per-hop overhead in seconds (software latency of a message through MPI and TCP); 0 in
       PAPER.md's model (a = the network's own latency, 0 on the emulated link)
Both are fitted by least squares of the relative error on one set of runs (the 2-rank runs)
and checked on the others (4 ranks). Steps before `skip` (connection set-up) are left out."""
import math
import os

from .comm_model import upgrade_run
from .logfiles import read_json, read_jsonl
from .network import solve_cxy

SKIP = 5  # the first steps open the TCP connections


class ClockRun:
    """One run of scripts/clock-validation.sh: <model>-<method>-n<N>-<rate>/."""

    def __init__(self, path, note=print):
        self.path, self.name = path, os.path.basename(path.rstrip("/"))
        self.summary = read_json(os.path.join(path, "summary.json"), note) or {}
        self.counters = read_json(os.path.join(path, "counters.json"), note) or {}
        self.config = read_json(os.path.join(path, "config.json"), note) or {}
        self.nodes = int(self.summary.get("nodes") or 0)
        self.method = self.name.split("-")[1] if "-" in self.name else self.summary.get("method")
        self.rate_bps = float(self.counters.get("rate_bits_per_s") or 0)
        self.rate = self.counters.get("rate", "?")
        self.steps = []  # (step, X, Y, comm_min_s, comm_s, compute_s, wall_s, selection_s)
        rows = read_jsonl(os.path.join(path, "log.jsonl"), note)
        method = self.summary.get("method") or (rows[-1].get("method") if rows else None)
        upgrade_run(self.config, method, self.nodes, rows, [], None,
                    note=lambda m: note(f"{self.name}: {m}"))
        for r in rows:
            cxy = solve_cxy(r.get("modeled_comm_s") or {})
            if cxy is None or "comm_min_s" not in r:
                continue
            st = r.get("strategy") or {}
            sel = float(st.get("compress_s") or 0.0) + float(st.get("decompress_s") or 0.0)
            self.steps.append((int(r["step"]), cxy[1], cxy[2], float(r["comm_min_s"]),
                               float(r["comm_s"]), float(r["compute_s"]), float(r["wall_s"]), sel))
        self.steps.sort()

    def ok(self):
        return self.nodes > 1 and self.rate_bps > 0 and len(self.used()) > 0

    def used(self, skip=SKIP):
        return [s for s in self.steps if s[0] > skip]

    def bandwidth_Bps(self):
        """The per-node bandwidth the model sees on the shared loopback: R / N, in bytes/s."""
        return self.rate_bps / 8.0 / self.nodes

    def means(self, skip=SKIP):
        """(mean bandwidth seconds X / B, mean hops Y, mean measured comm_min_s, mean comm_s)
        per step."""
        u = self.used(skip)
        n = len(u)
        B = self.bandwidth_Bps()
        return (sum(s[1] for s in u) / B / n, sum(s[2] for s in u) / n,
                sum(s[3] for s in u) / n, sum(s[4] for s in u) / n)

    def modeled(self, eta=1.0, overhead_s=0.0, skip=SKIP):
        a, y, _, _ = self.means(skip)
        return a / eta + y * overhead_s


def fit(runs, skip=SKIP):
    """(eta, overhead_s) minimising sum over runs of ((model - measured) / measured)^2 with
    model = A / eta + Y o (A = bandwidth seconds, Y = hops per step): linear least squares in
    (1 / eta, o), solved in closed form, with o >= 0 (when the unconstrained o is negative, o = 0
    and eta is fitted alone). Runs with no measured communication are left out."""
    s_aa = s_ay = s_yy = s_am = s_ym = 0.0
    for r in runs:
        a, y, m, _ = r.means(skip)
        if m <= 0:
            continue
        w = 1.0 / (m * m)
        s_aa += w * a * a
        s_ay += w * a * y
        s_yy += w * y * y
        s_am += w * a * m
        s_ym += w * y * m
    det = s_aa * s_yy - s_ay * s_ay
    if s_aa <= 0:
        return 1.0, 0.0
    if det <= 1e-9 * s_aa * s_yy:  # one run, or runs that cannot tell the two terms apart
        return s_aa / s_am, 0.0
    inv_eta = (s_am * s_yy - s_ay * s_ym) / det
    o = (s_aa * s_ym - s_ay * s_am) / det
    if o < 0:  # no overhead to find (a negative one is noise): eta alone, o = 0
        return s_aa / s_am, 0.0
    return 1.0 / inv_eta, o


def predicted_wall(run, compute_s, eta=1.0, overhead_s=0.0):
    """The virtual clock's wall time of the whole run: every step's profile compute, its
    measured selection seconds (compress + decompress of node 0, the clock's measured SEL) and
    its modeled communication (all steps, the first ones included)."""
    B = run.bandwidth_Bps()
    return sum(compute_s + s[7] + s[1] / B / eta + s[2] * overhead_s for s in run.steps)


def measured_wall(run):
    return run.steps[-1][6] if run.steps else None


def row(run, eta, overhead_s, compute_s=None, skip=SKIP):
    """One row of results/clock/validation.json."""
    a, y, m, mx = run.means(skip)
    raw, fitted = run.modeled(1.0, 0.0, skip), run.modeled(eta, overhead_s, skip)
    logged = sum(s[1] for s in run.steps) + 0.0
    r = {"run": run.name, "method": run.method, "ranks": run.nodes, "rate": run.rate,
         "rate_bits_per_s": run.rate_bps, "steps": len(run.steps), "steps_used": len(run.used(skip)),
         "measured_comm_s_per_step": m, "measured_comm_max_s_per_step": mx,
         "measured_compute_s_per_step": median([s[5] for s in run.used(skip)]),
         "ring_model_comm_s_per_step": raw, "ratio_ring_model": raw / m if m > 0 else None,
         "fitted_model_comm_s_per_step": fitted,
         "ratio_fitted_model": fitted / m if m > 0 else None,
         "hops_per_step": y, "link_bytes_tc": run.counters.get("bytes"),
         "ring_bytes_logged": logged * run.nodes}
    if compute_s is not None and run.steps:
        r["measured_wall_s"] = measured_wall(run)
        r["predicted_wall_s_ring_model"] = predicted_wall(run, compute_s)
        r["predicted_wall_s_fitted"] = predicted_wall(run, compute_s, eta, overhead_s)
        r["compute_s_per_step_profile"] = compute_s
    return r


def median(xs):
    """The median (None for no values): logs made before commit a3015b3 book an averaging
    step's MPI wait as compute, and a mean would be pulled up by those few steps."""
    if not xs:
        return None
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def within(ratio, tol=0.20):
    return ratio is not None and abs(ratio - 1.0) <= tol + 1e-12


def load_runs(root, note=print):
    """Every run folder under root/runs (or root itself) with a log.jsonl."""
    base = os.path.join(root, "runs") if os.path.isdir(os.path.join(root, "runs")) else root
    out = []
    for d in sorted(os.listdir(base)):
        p = os.path.join(base, d)
        if any(os.path.isfile(os.path.join(p, f)) for f in ("log.jsonl", "log.jsonl.gz")):
            r = ClockRun(p, note)
            if r.ok():
                out.append(r)
    return out


def finite(x):
    return x is not None and math.isfinite(x)
