#!/usr/bin/env python3
"""Virtual (hardware-independent) clock for run-experiment logs, and a FLOP counter.

Usage:
  vclock.py flops CONFIG_JSON [--tgt-tokens N]          FLOPs of one training step, per node
  vclock.py clock RUN_DIR --profile P.json [--network 1gbe | --bandwidth-gbps B --latency-us A]
                                                         virtual time at each validation step
  vclock.py measure RUN_DIR...                           seconds/step and FLOP/s measured in runs

The virtual time of a run after step t (docs/LOG_FORMAT.md, "Derived quantities"):

    time(t) = t * c  +  SEL(t)  +  X(t) / B  +  Y(t) * a

  c      compute seconds of one step on one node, from a hardware profile
         (configs/hardware/*.json): either a `seconds_per_step` entry matching the model and
         batch, or `overhead_s + flops_per_step / sustained_flops` (FLOPs counted below).
  SEL(t) gradient-selection seconds summed over steps 1..t: "measured" (the logged
         strategy.compress_s + strategy.decompress_s of node 0, each logged value standing for
         the steps since the previous log line) or modeled from throughputs
         (P / select_values_per_s + N * pairs / scatter_values_per_s per sparse step).
  X(t)   "ring bytes": sum over steps and collectives of the bandwidth term's bytes of
         PAPER.md's ring model (2(N-1)/N * b per all-reduce of b bytes, (N-1) * b per
         all-gather of b bytes per node), so X / B is the bandwidth time on any network B.
  Y(t)   latency hops: sum of 2(N-1) per all-reduce and (N-1) per all-gather.
  B, a   network bandwidth (bytes/s) and per-hop latency (s).

X(t), Y(t) and the measured compute C(t) are recovered EXACTLY (no interpolation) at every
logged or validated step from the cumulative `modeled_time_s` the trainer writes for its three
preset networks: modeled_time_s[k] = C + X * u_k + Y * a_k with (u_k, a_k) known for 1gbe,
10gbe and ib100 is three linear equations in three unknowns. Every step is in those sums,
drop-ratio warm-up steps and averaging steps included. Between validation steps X and Y are
interpolated linearly (only needed for steps nobody validated at).

Pure Python (no numpy), so it runs under any python3.
"""
import argparse
import json
import math
import os
import sys

# lib/distributed/ring_network_model.cpp: name -> (Gbit/s, latency in microseconds)
PRESETS = {"1gbe": (1.0, 50.0), "10gbe": (10.0, 20.0), "ib100": (100.0, 2.0)}


def seconds_per_byte(gbps):
    return 8.0 / (gbps * 1e9)


def number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


# ----------------------------------------------------------------------------- FLOP counter
# Multiply-accumulates (MACs) of the matrix products of one forward pass over one node's batch;
# FLOPs of a training step = 2 (flop per MAC) * 3 (forward + backward's two products per
# forward product) * MACs = 6 * MACs. Element-wise work (biases, layer norm, softmax, GRU gates,
# dropout, Adam) and embedding look-ups are not counted; they are memory-bound and small next
# to the products at these shapes, and a measured profile absorbs them anyway.
DEFAULT_SRC_PER_TGT = 1.2  # debmsg de/en: 50.7 vs 41.1 characters per line (train), ~1.23
DEFAULT_TGT_LEN = 14.0     # mean target pieces per sentence (6.6 words, 2000-piece vocab), assumed
TRAIN_FACTOR = 6.0


def transformer_macs(m, V, src_tok, tgt_tok, src_len, tgt_len):
    """lib/models/transformer_model.cpp: q/k/v/o [D, D], ffn [D, F] + [F, D], output [D, V]."""
    D, F = m["d_model"], m["ff"]
    Le, Ld = m["encoder_layers"], m["decoder_layers"]
    t = {}
    t["encoder projections+ffn"] = src_tok * Le * (4 * D * D + 2 * D * F)
    t["encoder attention (QK^T, AV)"] = src_tok * Le * 2 * src_len * D
    t["decoder self q/k/v/o + cross q/o + ffn"] = tgt_tok * Ld * (6 * D * D + 2 * D * F)
    t["decoder cross k/v (over source)"] = src_tok * Ld * 2 * D * D
    t["decoder attention (self + cross)"] = tgt_tok * Ld * 2 * (tgt_len + src_len) * D
    t["output projection"] = tgt_tok * D * V
    return t


def rnn_macs(m, V, src_tok, tgt_tok, src_len, tgt_len):
    """lib/models/rnn_model.cpp: bi-GRU encoder (input [E, 3H], hidden [H, 3H] per direction),
    extra encoder layers [C, 3C] x 2, attention keys [C, D], query [D, D], score [D, 1];
    cGRU decoder gru1 ([E, 3D], [D, 3D]) and gru2 ([C, 3D], [D, 3D]); deep output
    [D + C + E, E]; output [E, V] (tied to the target embedding). C = 2H."""
    E, H, Dd, L = m["emb_dim"], m["enc_dim"], m["dec_dim"], m.get("enc_layers", 1)
    C = 2 * H
    t = {}
    t["encoder bi-GRU"] = src_tok * 2 * (3 * E * H + 3 * H * H)
    t["encoder extra layers"] = src_tok * (L - 1) * 2 * 3 * C * C
    t["attention keys"] = src_tok * C * Dd
    t["decoder GRUs"] = tgt_tok * (3 * E * Dd + 3 * Dd * Dd + 3 * C * Dd + 3 * Dd * Dd)
    t["attention query + scores + context"] = tgt_tok * (Dd * Dd + src_len * (Dd + C))
    t["deep output"] = tgt_tok * (Dd + C + E) * E
    t["output projection"] = tgt_tok * E * V
    return t


def parameter_count(config):
    """Parameters of the model from the same shapes the FLOP counter uses (weights, biases,
    layer norms, embeddings once per table): a check that the counter reads the shapes of
    lib/models/*.cpp right -- it must equal summary.json's `parameters`."""
    m = config["model"]
    V = model_vocab(config)
    tied = m.get("tied_embeddings", "all")
    lin = lambda i, o, bias=True: i * o + (o if bias else 0)  # noqa: E731
    if m.get("type") == "transformer":
        D, F = m["d_model"], m["ff"]
        att = 4 * lin(D, D)
        ffn = lin(D, F) + lin(F, D)
        enc = m["encoder_layers"] * (att + ffn + 2 * 2 * D)
        dec = m["decoder_layers"] * (2 * att + ffn + 3 * 2 * D)
        final = 2 * 2 * D if m.get("norm") == "pre" else 0
        tables = {"all": 1, "output": 2, "none": 3}[tied] * V * D
        return tables + V + enc + dec + final
    E, H, Dd, L = m["emb_dim"], m["enc_dim"], m["dec_dim"], m.get("enc_layers", 1)
    C = 2 * H
    gru = lambda i, d: lin(i, 3 * d) + lin(d, 3 * d)  # noqa: E731
    tables = {"all": 1, "output": 2, "none": 3}[tied] * V * E
    return (tables + V + 2 * gru(E, H) + (L - 1) * gru(C, C) + lin(C, Dd) + gru(E, Dd) +
            lin(Dd, Dd, False) + lin(C, Dd) + lin(Dd, 1, False) + gru(C, Dd) + lin(Dd + C + E, E))


def model_vocab(config):
    m, d = config.get("model", {}), config.get("data", {})
    return int(m.get("vocab_size") or d.get("vocab_size"))


def flops_per_step(config, tgt_tokens=None, src_per_tgt=DEFAULT_SRC_PER_TGT,
                   tgt_len=DEFAULT_TGT_LEN):
    """(FLOPs of one training step on one node, {term: FLOPs}) for a resolved config.json.
    tgt_tokens: target tokens in the node's batch (default data.batch_tokens)."""
    m = config["model"]
    V = model_vocab(config)
    if tgt_tokens is None:
        tgt_tokens = float(config["data"]["batch_tokens"])
    src_tok = tgt_tokens * src_per_tgt
    src_len = tgt_len * src_per_tgt
    kind = m.get("type")
    if kind == "transformer":
        macs = transformer_macs(m, V, src_tok, tgt_tokens, src_len, tgt_len)
    elif kind == "rnn":
        macs = rnn_macs(m, V, src_tok, tgt_tokens, src_len, tgt_len)
    else:
        raise ValueError(f"no FLOP counter for model type {kind!r}")
    terms = {k: TRAIN_FACTOR * v for k, v in macs.items()}
    return sum(terms.values()), terms


# ----------------------------------------------------------------------------- profiles
def load_profile(path):
    with open(path, encoding="utf-8") as f:
        p = json.load(f)
    for key in ("name", "source"):
        if not isinstance(p.get(key), str) or not p[key]:
            raise ValueError(f"{path}: profile needs a non-empty {key!r}")
    if number(p.get("sustained_flops")) is None and not p.get("seconds_per_step"):
        raise ValueError(f"{path}: profile needs sustained_flops or seconds_per_step")
    p.setdefault("overhead_s", 0.0)  # a number, or {model type: seconds}
    p.setdefault("selection", {"mode": "measured"})
    p.setdefault("sensitivity", [1.0])
    p["path"] = path
    return p


def dotted(config, key):
    cur = config
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def matches(config, match):
    for k, v in match.items():
        have = dotted(config, k)
        if isinstance(v, (int, float)) and number(have) is not None:
            if abs(float(have) - float(v)) > 1e-6 * max(1.0, abs(float(v))):
                return False
        elif have != v:
            return False
    return True


def step_compute_s(profile, config, tgt_tokens=None, scale=1.0):
    """c: seconds of one step on one node, and how it was obtained."""
    for entry in profile.get("seconds_per_step") or []:
        if matches(config, entry.get("match", {})):
            return scale * float(entry["seconds"]), "seconds_per_step (matched)"
    flops = number(profile.get("sustained_flops"))
    if flops is None:
        raise ValueError(f"profile {profile['name']}: no seconds_per_step entry matches "
                         f"this model and no sustained_flops to fall back on")
    f, _ = flops_per_step(config, tgt_tokens)
    over = profile.get("overhead_s", 0.0)
    if isinstance(over, dict):
        over = over.get(dotted(config, "model.type"), 0.0)
    return scale * (float(over) + f / flops), "overhead_s + FLOPs / sustained_flops"


# ----------------------------------------------------------------------------- log decomposition
def solve_cxy(modeled):
    """modeled: cumulative modeled_time_s {net: s} with all three presets -> (C, X, Y) with
    modeled[k] = C + X * u_k + Y * a_k. None when a preset is missing."""
    try:
        t = {k: float(modeled[k]) for k in PRESETS}
    except (KeyError, TypeError, ValueError):
        return None
    u = {k: seconds_per_byte(g) for k, (g, _) in PRESETS.items()}
    a = {k: lat * 1e-6 for k, (_, lat) in PRESETS.items()}
    # subtract the ib100 row: (T1 - T3) = X (u1 - u3) + Y (a1 - a3), (T2 - T3) likewise
    p11, p12, r1 = u["1gbe"] - u["ib100"], a["1gbe"] - a["ib100"], t["1gbe"] - t["ib100"]
    p21, p22, r2 = u["10gbe"] - u["ib100"], a["10gbe"] - a["ib100"], t["10gbe"] - t["ib100"]
    det = p11 * p22 - p12 * p21
    X = (r1 * p22 - p12 * r2) / det
    Y = (p11 * r2 - r1 * p21) / det
    C = t["ib100"] - X * u["ib100"] - Y * a["ib100"]
    # Round-off: hops are integers; X, Y cannot be negative.
    return C, max(0.0, X), max(0.0, round(Y, 6))


def read_jsonl(path):
    rows = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    rows.append(obj)
    return rows


def piecewise_sum(points, t):
    """points: [(step, value per step)] sorted by step, each value standing for the steps since
    the previous point (the first for steps 1..its step, the last also for later steps).
    Returns the sum over steps 1..t."""
    total, prev = 0.0, 0
    for step, v in points:
        if prev >= t:
            break
        total += v * (min(step, t) - prev)
        prev = step
    if points and t > prev:
        total += points[-1][1] * (t - prev)
    return total


class RunClock:
    """The exact cumulative quantities of one run, from its log.jsonl / valid.jsonl / config.json."""

    def __init__(self, run_dir=None, config=None, log=None, valid=None):
        if run_dir is not None:
            with open(os.path.join(run_dir, "config.json"), encoding="utf-8") as f:
                config = json.load(f)
            log = read_jsonl(os.path.join(run_dir, "log.jsonl"))
            valid = read_jsonl(os.path.join(run_dir, "valid.jsonl"))
        self.config, self.log, self.valid = config or {}, log or [], valid or []
        self.nodes = int(dotted(self.config, "cluster.nodes") or
                         (self.log[0].get("nodes") if self.log else 1) or 1)
        self.method = self.log[-1].get("method") if self.log else dotted(self.config, "distributed.method")
        self.params = None
        if run_dir is not None and os.path.isfile(os.path.join(run_dir, "summary.json")):
            try:
                with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
                    self.params = number(json.load(f).get("parameters"))
            except ValueError:
                pass
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
        for r in self.log:
            st = r.get("strategy") if isinstance(r.get("strategy"), dict) else {}
            s = number(r.get("step"))
            if s is None:
                continue
            c, d = number(st.get("compress_s")), number(st.get("decompress_s"))
            if c is not None or d is not None:
                sel.append((int(s), (c or 0.0) + (d or 0.0)))
            k = number(r.get("pairs"))
            if k is not None:
                pairs.append((int(s), k))
        self.sel_points, self.pair_points = sorted(sel), sorted(pairs)

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
        if not self.sel_points:
            return 0.0
        mode = selection.get("mode", "measured")
        if mode == "measured":
            return piecewise_sum(self.sel_points, t)
        if mode == "modeled":
            P = number(selection.get("parameters")) or self.parameter_count()
            scan = P / float(selection["select_values_per_s"])
            scatter = float(selection.get("scatter_values_per_s") or selection["select_values_per_s"])
            return t * scan + self.nodes * piecewise_sum(self.pair_points, t) / scatter
        if mode == "ratio":  # a fixed fraction of the step's compute; caller multiplies by c
            return None
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

    def time(self, t, c, gbps, latency_us, selection=None, sel_ratio=None):
        """Virtual seconds after step t with step compute c on a network (gbps, latency_us).
        Returns (total, {compute, selection, bandwidth, latency})."""
        _, X, Y = self.cumulative(t)
        if sel_ratio is not None:
            sel = sel_ratio * c * t if self.sel_points else 0.0
        else:
            sel = self.selection_s(t, selection or {"mode": "measured"})
        parts = {"compute": t * c, "selection": sel,
                 "bandwidth": X * seconds_per_byte(gbps) if self.nodes > 1 else 0.0,
                 "latency": Y * latency_us * 1e-6 if self.nodes > 1 else 0.0}
        return sum(parts.values()), parts

    def measured_selection_ratio(self, c_measured):
        """Mean measured selection seconds per step / the measured compute of a dense step."""
        t = self.last_step()
        if not self.sel_points or not t or not c_measured:
            return 0.0
        return piecewise_sum(self.sel_points, t) / (t * c_measured)


def merge_into(base, top):
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge_into(base[k], v)
        else:
            base[k] = v


def load_config(path, depth=0):
    """A config file with its "extends" chain merged (as lib/experiment/config_loader.cpp);
    defaults the trainer adds are not filled in (a run's config.json has them all)."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    base = j.pop("extends", None)
    if base is None or depth > 8:
        return j
    if not os.path.isabs(base):
        base = os.path.join(os.path.dirname(path), base)
    merged = load_config(base, depth + 1)
    merge_into(merged, j)
    return merged


def network_of(args):
    if args.bandwidth_gbps is not None:
        return args.bandwidth_gbps, args.latency_us
    return PRESETS[args.network]


def profile_compute(profile, clock, scale=1.0):
    return step_compute_s(profile, clock.config, clock.tokens_per_node_step(), scale)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("flops")
    f.add_argument("config")
    f.add_argument("--tgt-tokens", type=float)
    c = sub.add_parser("clock")
    c.add_argument("run_dir")
    c.add_argument("--profile", required=True)
    c.add_argument("--network", default="1gbe", choices=sorted(PRESETS))
    c.add_argument("--bandwidth-gbps", type=float)
    c.add_argument("--latency-us", type=float, default=0.0)
    m = sub.add_parser("measure")
    m.add_argument("run_dirs", nargs="+")
    args = p.parse_args(argv)
    if args.cmd == "flops":
        config = load_config(args.config)
        total, terms = flops_per_step(config, args.tgt_tokens)
        for k, v in terms.items():
            print(f"{k:45s} {v / 1e6:12.2f} MFLOP  {100 * v / total:5.1f}%")
        print(f"{'total per node and step':45s} {total / 1e9:12.4f} GFLOP")
        print(f"{'parameters (from the same shapes)':45s} {parameter_count(config):12d}")
        return 0
    if args.cmd == "clock":
        profile = load_profile(args.profile)
        clock = RunClock(args.run_dir)
        gbps, lat = network_of(args)
        cstep, how = profile_compute(profile, clock)
        print(f"# {args.run_dir}: profile {profile['name']} (c = {cstep * 1e3:.3f} ms, {how}), "
              f"network {gbps} Gbit/s, {lat} us")
        print("step\tdev_ce\tbleu\tvirtual_s\tcompute_s\tselection_s\tbandwidth_s\tlatency_s")
        for v in clock.valid:
            s = int(v["step"])
            tot, parts = clock.time(s, cstep, gbps, lat, profile["selection"])
            print(f"{s}\t{v.get('dev_ce')}\t{v.get('bleu')}\t{tot:.3f}\t" +
                  "\t".join(f"{parts[k]:.3f}" for k in ("compute", "selection", "bandwidth", "latency")))
        return 0
    if args.cmd == "measure":
        for d in args.run_dirs:
            clock = RunClock(d)
            comp = sorted(number(r.get("compute_s")) for r in clock.log if number(r.get("compute_s")) is not None)
            if not comp:
                print(f"{d}: no compute_s in log.jsonl")
                continue
            med = comp[len(comp) // 2]
            fl, _ = flops_per_step(clock.config, clock.tokens_per_node_step())
            print(f"{d}: {len(comp)} logged steps, median compute_s {med:.5f} s/step "
                  f"(mean over all steps {clock.measured_compute_per_step():.5f}), "
                  f"{clock.tokens_per_node_step():.1f} target tokens/node/step, "
                  f"{fl / 1e9:.4f} GFLOP/step -> {fl / med / 1e9:.2f} GFLOP/s sustained")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
