#!/usr/bin/env python3
"""Speed-up maps: time-to-target speed-up of each method over 4-node dense and over 1 node,
across network bandwidth x per-step compute time, from committed logs (no rerun).

Usage: speedup_map.py RESULTS_DIR [--out DIR] [--profile P.json ...] [--metric ce|bleu]
                      [--target-rule plateau|v1] [--target-ce X] [--target-bleu X]
                      [--latency-us 20] [--grid 61] [--no-plot]

For a run M that first reaches the target at validation step t_M (docs/LOG_FORMAT.md,
"Derived quantities"; scripts/vclock.py):

    T_M(c, B) = t_M * c * (1 + f_M)  +  X_M(t_M) * 8 / B  +  Y_M(t_M) * a

  c    per-step compute seconds of one node (the map's y axis, 1 ms .. 10 s)
  B    bandwidth in bit/s (the x axis, 0.1 .. 400 Gbit/s); a = --latency-us per hop
  f_M  selection cost as a fraction of a step's compute, as measured in these logs
       (M's summed compress_s + decompress_s over t_M * the measured compute per step of the
       4-node dense run); 0 for methods that select nothing
  X, Y exact ring bytes and latency hops of steps 1..t_M (vclock.RunClock)

speed-up over 4-node dense = T_dense4 / T_M; over 1 node = T_1node / T_M (a 1-node run has
no communication). Runs that differ only by a trailing "-s<seed>" / "-seed<seed>" are seeds
of one variant: a variant reaches the target when every seed does, and its t, X, Y are the
means over seeds (T is linear in them). Shipped profiles (configs/hardware/*.json) are drawn
as horizontal lines at their c for the model (dotted: the profile's sensitivity band), and
the preset networks as vertical lines; speedup-map.md lists the values at those points, with
the selection cost of the profile itself (measured or modeled), as vclock.py computes it.

Figures need matplotlib (Debian: /usr/bin/python3); --no-plot writes only the table.
Exit status: 0 done, 2 bad arguments or no experiments, 1 plotting libraries missing.
"""
import argparse
import glob
import math
import os
import re
import shlex
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plot  # noqa: E402
import vclock  # noqa: E402

SEED_RE = re.compile(r"-(?:s|seed)(\d+)$")
C_RANGE = (1e-3, 10.0)       # seconds per step
B_RANGE = (0.1, 400.0)       # Gbit/s


def variant_name(name):
    base = os.path.basename(name)
    return SEED_RE.sub("", base)


class Variant:
    """One configuration, all its seeds."""

    def __init__(self, name, runs):
        self.name, self.runs = name, runs
        e = runs[0]
        self.model, self.nodes, self.method = e.model, e.nodes, e.method
        self.clocks = [vclock.RunClock(r.path) for r in runs]
        self.steps = max(r.steps for r in runs)

    def values(self, key):
        """[[(step, value)] per seed] of a validation metric."""
        out = []
        for r in self.runs:
            out.append([(int(v["step"]), plot.number(v.get(key))) for v in r.valid
                        if plot.number(v.get(key)) is not None and plot.number(v.get("step"))])
        return out


def group_variants(exps):
    by = {}
    for e in exps:
        by.setdefault((e.model, variant_name(e.name)), []).append(e)
    out = {}
    for (model, name), runs in sorted(by.items()):
        # A seed still running would pull the variant's means toward its early numbers: once a
        # variant has a complete seed, only complete seeds count (a variant with none keeps
        # its runs, so a running suite still shows numbers so far).
        done = [r for r in runs if getattr(r, "status", "complete") == "complete"]
        out.setdefault(model, []).append(Variant(name, sorted(done or runs, key=lambda r: r.name)))
    return out


def better(key, x, target):
    return x >= target if key == "bleu" else x <= target


def first_hit(series, key, target):
    for step, x in series:
        if better(key, x, target):
            return step
    return None


def best_of(series, key):
    """(best value, its first step) of one seed's validations."""
    if not series:
        return None, None
    pick = max if key == "bleu" else min
    v = pick(x for _, x in series)
    return v, next(s for s, x in series if x == v)


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
            parts.append(f"{os.path.basename(name)}: best {plot.fmt(v, 3 if self.key != 'bleu' else 2)} "
                         f"at step {s}" if v is not None else f"{os.path.basename(name)}: no validation")
        n = len(self.variant.runs)
        return f"not reached by {len(self.missed)}/{n} seed(s) ({'; '.join(parts)})"

    def time(self, c, gbps, latency_us, f_sel):
        """Map formula: t c (1 + f) + X * 8 / B + Y a (nodes > 1)."""
        comm = 0.0
        if (self.variant.nodes or 1) > 1:
            comm = self.X * vclock.seconds_per_byte(gbps) + self.Y * latency_us * 1e-6
        return self.t * c * (1.0 + f_sel) + comm

    def profile_time(self, profile, gbps, latency_us, scale=1.0):
        """Virtual-clock time with the profile's own c and selection model (mean over seeds)."""
        tot = []
        for s, clock in self.pairs:
            c, _ = vclock.profile_compute(profile, clock, scale)
            tot.append(clock.time(s, c, gbps, latency_us, profile["selection"])[0])
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


def references(variants, ref4=None, ref1=None):
    """(4-node dense variant, 1-node dense variant). Defaults: the 4-node dense variant with the
    shortest name (no lr-scaling tag); the 1-node dense variant with the most steps."""
    def pick(name, cands, key):
        if name:
            return next((v for v in cands if v.name == name), None)
        return min(cands, key=key) if cands else None
    d4 = pick(ref4, [v for v in variants if v.nodes == 4 and v.method == "dense"],
              lambda v: (len(v.name), v.name))
    d1 = pick(ref1, [v for v in variants if v.nodes == 1 and v.method == "dense"],
              lambda v: (-v.steps, v.name))
    return d4, d1


def plateau(variant, key, fraction=0.2):
    """Mean over seeds of the mean metric over validations in the last `fraction` of the run,
    and the relative change over that window (last minus first, over first; mean over seeds)."""
    means, changes = [], []
    for series in variant.values(key):
        if not series:
            continue
        last = series[-1][0]
        window = [(s, x) for s, x in series if s >= (1 - fraction) * last]
        if len(window) < 1:
            continue
        means.append(sum(x for _, x in window) / len(window))
        if len(window) >= 2 and window[0][1]:
            changes.append((window[-1][1] - window[0][1]) / abs(window[0][1]))
    if not means:
        return None, None
    return sum(means) / len(means), (sum(changes) / len(changes) if changes else None)


def target_for(d4, key, rule, explicit=None, ce_margin=0.02, bleu_fraction=0.95):
    """(target value, how). rule 'v1' = REPORT v1's (claims.py): CE <= 1.10 x 4-node dense's
    last dev CE, BLEU >= 0.9 x its best; 'plateau' = CE <= (1 + ce_margin) x its plateau,
    BLEU >= bleu_fraction x its plateau (means over seeds)."""
    if explicit is not None:
        return explicit, "given"
    if d4 is None:
        return None, "no 4-node dense run"
    if rule == "v1":
        if key == "bleu":
            bests = [best_of(s, "bleu")[0] for s in d4.values("bleu")]
            bests = [b for b in bests if b is not None]
            return (0.9 * statistics.mean(bests), "90% of 4-node dense's best dev BLEU") if bests else (None, "no BLEU")
        lasts = [s[-1][1] for s in d4.values("dev_ce") if s]
        return (1.1 * statistics.mean(lasts), "110% of 4-node dense's last dev CE") if lasts else (None, "no dev CE")
    p, _ = plateau(d4, key)
    if p is None:
        return None, "no validations"
    if key == "bleu":
        return bleu_fraction * p, f"{100 * bleu_fraction:.0f}% of 4-node dense's plateau dev BLEU {p:.2f}"
    return (1 + ce_margin) * p, f"{100 * (1 + ce_margin):.0f}% of 4-node dense's plateau dev CE {p:.3f}"


def logspace(lo, hi, n):
    a, b = math.log10(lo), math.log10(hi)
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def speedup_grid(hit, ref, cs, bs, latency_us, f_hit, f_ref):
    return [[ref.time(c, b, latency_us, f_ref) / hit.time(c, b, latency_us, f_hit) for b in bs]
            for c in cs]


def load_profiles(paths):
    if not paths:
        paths = sorted(glob.glob(os.path.join(HERE, "..", "configs", "hardware", "*.json")))
    return [vclock.load_profile(p) for p in paths]


def analyse(variants, key, target, profiles, latency_us, ref4=None, ref1=None):
    d4, d1 = references(variants, ref4, ref1)
    c_meas = d4.clocks[0].measured_compute_per_step() if d4 else None
    hits = {v.name: Hit(v, key, target) for v in variants}
    fsel = {v.name: selection_fraction(v, c_meas, hits[v.name]) for v in variants}
    return d4, d1, hits, fsel, c_meas


def md_table(head, rows):
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + \
           ["| " + " | ".join(r) + " |" for r in rows]


def profile_rows(model, variants, d4, d1, hits, profiles, latency_us, networks):
    """Speed-ups at each shipped profile (and its sensitivity band) x preset network."""
    rows = []
    for prof in profiles:
        scales = sorted(set([1.0] + list(prof.get("sensitivity", []))))
        for scale in scales:
            for net in networks:
                gbps, lat = vclock.PRESETS[net]
                ref4 = hits[d4.name] if d4 else None
                ref1 = hits[d1.name] if d1 else None
                c = vclock.profile_compute(prof, d4.clocks[0], scale)[0] if d4 else None
                share = "n/a"
                if d4 and c:
                    clk = d4.clocks[0]
                    t = clk.last_step()
                    _, X, Y = clk.cumulative(t)
                    comm = (X * vclock.seconds_per_byte(gbps) + Y * lat * 1e-6) / t
                    share = f"{100 * comm / (c + comm):.0f}%"
                t4 = ref4.profile_time(prof, gbps, lat, scale) if ref4 and ref4.reached else None
                t1 = ref1.profile_time(prof, gbps, lat, scale) if ref1 and ref1.reached else None
                for v in variants:
                    h = hits[v.name]
                    if v.nodes == 1 or not h.reached:
                        continue
                    tm = h.profile_time(prof, gbps, lat, scale)
                    rows.append([model, prof["name"] + (f" x{scale:g}" if scale != 1.0 else ""),
                                 f"{c * 1e3:.2f}" if c else "n/a", net, share, v.name,
                                 f"{tm:.1f}", plot.ratio(t4, tm), plot.ratio(t1, tm)])
    return rows


def draw(plt, model, variants, d4, d1, hits, fsel, profiles, cs, bs, latency_us, key, target,
         how, out_dir, tag_suffix=""):
    import matplotlib.colors as mcolors
    names = []
    for ref, tag, title in ((d4, "dense4", "4-node dense"), (d1, "1node", "1 node")):
        if ref is None:
            continue
        panels = [v for v in variants if v is not ref and (v.nodes or 0) > 1]
        if not panels:
            continue
        ncol = min(4, len(panels))
        nrow = (len(panels) + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol + 1.2, 3.2 * nrow + 1.0),
                                 squeeze=False)
        norm = mcolors.TwoSlopeNorm(vmin=-2.0, vcenter=0.0, vmax=2.0)
        mesh = None
        rh = hits[ref.name]
        for ax, v in zip([a for row in axes for a in row], panels):
            h = hits[v.name]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(*B_RANGE)
            ax.set_ylim(*C_RANGE)
            ax.set_title(f"{v.name}\n[{v.method}, {v.nodes}n, {len(v.runs)} seed(s)]", fontsize=7)
            if not (h.reached and rh.reached):
                ax.set_facecolor("0.85")
                why = h.why_not() if not h.reached else f"reference: {rh.why_not()}"
                ax.text(0.5, 0.5, "\n".join(wrap(why, 42)), transform=ax.transAxes,
                        ha="center", va="center", fontsize=6)
            else:
                grid = speedup_grid(h, rh, cs, bs, latency_us, fsel[v.name], fsel[ref.name])
                z = [[math.log2(x) for x in row] for row in grid]
                mesh = ax.pcolormesh(bs, cs, z, cmap="RdBu", norm=norm, shading="auto")
                lo, hi = min(min(r) for r in z), max(max(r) for r in z)
                for level, ls in ((0.0, "-"), (math.log2(1.5), "--")):
                    if lo < level < hi:
                        cs_ = ax.contour(bs, cs, z, levels=[level], colors="k", linestyles=ls,
                                         linewidths=1.0)
                        ax.clabel(cs_, fmt={level: f"{2 ** level:.1f}x"}, fontsize=6)
                ax.text(0.02, 0.02, f"t={h.t:.0f} vs {rh.t:.0f} steps; sel {100 * fsel[v.name]:.1f}% of c",
                        transform=ax.transAxes, fontsize=6)
            for net, (g, _) in vclock.PRESETS.items():
                ax.axvline(g, color="0.3", linewidth=0.6, linestyle=":")
                ax.text(g, C_RANGE[1] * 0.6, net, fontsize=5, rotation=90, va="top")
            for prof, color in zip(profiles, ("tab:green", "tab:orange", "tab:purple", "tab:cyan")):
                c = vclock.profile_compute(prof, (h if h.reached else rh).variant.clocks[0])[0]
                ax.axhline(c, color=color, linewidth=1.2)
                for s in prof.get("sensitivity", []):
                    if s != 1.0:
                        ax.axhline(c * s, color=color, linewidth=0.7, linestyle=":")
                ax.text(B_RANGE[0] * 1.1, c * 1.08, prof["name"], color=color, fontsize=6)
            ax.tick_params(labelsize=6)
        for ax in [a for row in axes for a in row][len(panels):]:
            ax.axis("off")
        for ax in axes[-1]:
            ax.set_xlabel("bandwidth [Gbit/s]", fontsize=7)
        for row in axes:
            row[0].set_ylabel("compute per step [s]", fontsize=7)
        label = "dev CE <=" if key == "dev_ce" else "dev BLEU >="
        fig.suptitle(f"{model}: time-to-target speed-up over {title} ({label} {target:.3f}; {how}); "
                     f"latency {latency_us:g} us/hop; solid 1.0x, dashed 1.5x", fontsize=8)
        if mesh is not None:
            cb = fig.colorbar(mesh, ax=axes, shrink=0.8)
            cb.set_ticks([-2, -1, math.log2(2 / 3), 0, math.log2(1.5), 1, 2])
            cb.set_ticklabels(["0.25x", "0.5x", "0.67x", "1x", "1.5x", "2x", "4x"])
        name = f"{model}-speedup-map{tag_suffix}-vs-{tag}.png"
        fig.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(fig)
        names.append(name)
    return names


def wrap(text, width):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w).strip()
    return lines + [cur] if cur else lines


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir")
    p.add_argument("--out", help="output folder (default RESULTS_DIR/figures)")
    p.add_argument("--profile", action="append", help="hardware profile (repeatable; default "
                   "configs/hardware/*.json)")
    p.add_argument("--metric", choices=("ce", "bleu"), default="ce")
    p.add_argument("--target-rule", choices=("plateau", "v1"), default="plateau")
    p.add_argument("--target-ce", type=float)
    p.add_argument("--target-bleu", type=float)
    p.add_argument("--latency-us", type=float, default=20.0)
    p.add_argument("--grid", type=int, default=61)
    p.add_argument("--ref4", help="variant name of the 4-node dense reference")
    p.add_argument("--ref1", help="variant name of the 1-node reference")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--model", help="only this model type (e.g. transformer)")
    p.add_argument("--tag", default="", help="suffix of the output file names (e.g. -ce4.0)")
    args = p.parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"speedup_map.py: error: {args.results_dir}: not a directory", file=sys.stderr)
        return 2
    notes = plot.Notes()
    exps = [plot.Experiment(d, args.results_dir, notes) for d in plot.find_experiment_dirs(args.results_dir)]
    exps = [e for e in exps if e.valid and (args.model is None or e.model == args.model)]
    if not exps:
        print(f"speedup_map.py: error: no experiments with validations under {args.results_dir}",
              file=sys.stderr)
        return 2
    key = "bleu" if args.metric == "bleu" else "dev_ce"
    explicit = args.target_bleu if key == "bleu" else args.target_ce
    profiles = load_profiles(args.profile)
    cs = logspace(*C_RANGE, args.grid)
    bs = logspace(*B_RANGE, args.grid)
    plt = None
    if not args.no_plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as e:
            print(f"speedup_map.py: error: {e}; use a python3 with matplotlib or --no-plot",
                  file=sys.stderr)
            return 1
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    out = ["# Speed-up maps", "", "Produced by:", "",
           "    " + shlex.join(["python3", "scripts/speedup_map.py"] + argv), "",
           "Virtual clock (scripts/vclock.py): time = t c (1 + f) + X 8 / B + Y a at the first "
           f"validation reaching the target; latency a = {args.latency_us:g} us per hop on the map, "
           "the preset's own latency in the table. Profiles: " +
           ", ".join(f"`{os.path.relpath(pr['path'])}` ({pr['name']})" for pr in profiles), ""]
    figures = []
    for model, variants in group_variants(exps).items():
        d4, _ = references(variants, args.ref4, args.ref1)
        target, how = target_for(d4, key, args.target_rule, explicit)
        out += [f"## {model}", ""]
        if target is None:
            out += [f"(no target: {how})", ""]
            continue
        d4, d1, hits, fsel, c_meas = analyse(variants, key, target, profiles, args.latency_us,
                                             args.ref4, args.ref1)
        out += [f"Target: {'dev BLEU >=' if key == 'bleu' else 'dev CE <='} {target:.4f} ({how}). "
                f"References: 4-node dense `{d4.name if d4 else 'none'}`, 1 node "
                f"`{d1.name if d1 else 'none'}`; measured dense compute here "
                f"{(c_meas or 0) * 1e3:.1f} ms/step.", ""]
        rows = []
        for v in variants:
            h = hits[v.name]
            rows.append([v.name, v.method, str(v.nodes), str(len(v.runs)),
                         f"{h.t:.0f}" if h.reached else "-",
                         ", ".join(str(s) for s in h.seed_steps) or "-",
                         f"{100 * fsel[v.name]:.2f}%", h.why_not() or "reached"])
        out += md_table(["variant", "method", "nodes", "seeds", "mean step at target",
                         "steps (per seed)", "selection / dense compute (measured)", "status"], rows)
        out += ["", "Speed-ups at the shipped profiles (virtual clock with the profile's c and "
                "selection model; comm share = modeled communication / (c + communication) of a "
                "4-node dense step):", ""]
        prow = profile_rows(model, variants, d4, d1, hits, profiles, args.latency_us,
                            list(vclock.PRESETS))
        out += md_table(["model", "profile", "c [ms]", "network", "comm share of dense step",
                         "variant", "virtual s to target", "vs 4-node dense", "vs 1 node"], prow)
        out += [""]
        if plt is not None:
            figures += draw(plt, model, variants, d4, d1, hits, fsel, profiles, cs, bs,
                            args.latency_us, key, target, how, out_dir, args.tag)
    if figures:
        out += ["## Figures", ""] + [f"- [{f}]({f})" for f in figures] + [""]
    if notes.lines:
        out += ["## Notes", ""] + ["- " + n for n in notes.lines]
    text = "\n".join(out) + "\n"
    # One table per (model filter, tag), so per-model runs with the same tag do not overwrite
    # each other's table.
    only = f"-{args.model}" if args.model else ""
    path = os.path.join(out_dir, f"speedup-map{only}{args.tag}.md")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
