#!/usr/bin/env python3
"""Convergence figures and a summary table from run-experiment result directories.

Usage: plot.py RESULTS_DIR [--out DIR] [--network 10gbe] [--target-bleu X] [--baseline NAME]
               [--profile configs/hardware/P.json ... [--profile-network 1gbe]] [--bands]

Reads only the JSON files of docs/LOG_FORMAT.md (config.json, log.jsonl, valid.jsonl,
summary.json) of every experiment directory under RESULTS_DIR, so it works on runs that are
still going or were cut off. Needs matplotlib and numpy (Debian: /usr/bin/python3).
--profile adds dev CE and dev BLEU (and train loss) against the virtual clock of that hardware
profile on --profile-network (scripts/vclock.py): <model>-{dev_ce,bleu,loss}-vs-virtual-<profile>-<net>.png.
--bands adds, for runs that differ only by a -s<seed> suffix, the mean over seeds with a shaded
+- 1 sd band: <model>-{dev_ce,bleu}-bands-vs-{steps,virtual-...}.png.
Exit status: 0 done, 2 bad arguments or no experiments, 1 plotting libraries missing.
"""
import argparse
import json
import math
import os
import re
import shlex
import sys

EXPERIMENT_FILES = ("log.jsonl", "summary.json", "config.json")
# Fixed colours per method so the same method looks the same in every figure.
METHOD_COLORS = {"dense": "black", "sparse": "tab:red", "sparse+sum": "tab:orange",
                 "sparse+partial": "tab:blue", "sparse+error": "tab:green",
                 "fedavg": "tab:purple"}
EXTRA_COLORS = ["tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
NODE_STYLES = {1: ":", 2: "--", 4: "-"}


class Notes:
    """Warnings go to stderr and into summary.md, so a reader of the table sees them too."""

    def __init__(self):
        self.lines = []

    def __call__(self, text):
        self.lines.append(text)
        print("plot.py: warning: " + text, file=sys.stderr)


def read_json(path, note):
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else None
    except ValueError as e:
        note(f"{path}: unreadable JSON ({e}); ignored")
        return None


def read_jsonl(path, note):
    """One object per line; a torn line (a run killed mid-write) is skipped, not fatal."""
    rows = []
    if not os.path.isfile(path):
        return rows
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                note(f"{path}:{number}: skipped an incomplete or malformed line")
                continue
            if isinstance(obj, dict):
                rows.append(obj)
    return rows


def number(x):
    """x as a finite float, else None (the C++ writer turns NaN into null)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def find_experiment_dirs(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if any(f in filenames for f in EXPERIMENT_FILES):
            found.append(dirpath)
            dirnames[:] = []  # checkpoints/ and the like belong to the experiment
    return found


class Experiment:
    def __init__(self, path, root, note):
        self.path = path
        rel = os.path.relpath(path, root)
        self.name = os.path.basename(os.path.abspath(path)) if rel == "." else rel
        self.config = read_json(os.path.join(path, "config.json"), note) or {}
        self.summary = read_json(os.path.join(path, "summary.json"), note)
        self.log = read_jsonl(os.path.join(path, "log.jsonl"), note)
        self.valid = read_jsonl(os.path.join(path, "valid.jsonl"), note)
        s = self.summary or {}
        last = self.log[-1] if self.log else {}
        model = self.config.get("model")
        self.model = str(model.get("type", "unknown")) if isinstance(model, dict) else "unknown"
        cluster = self.config.get("cluster")
        cluster_nodes = cluster.get("nodes") if isinstance(cluster, dict) else None
        self.nodes = next((int(n) for n in (s.get("nodes"), last.get("nodes"), cluster_nodes)
                           if number(n) is not None), None)
        self.method = next((str(m) for m in (s.get("method"), last.get("method")) if m), "?")
        steps = number(s.get("steps"))
        if steps is None:
            steps = number(last.get("step"))
        self.steps = int(steps) if steps is not None else 0
        if self.summary is None:
            self.status, self.reason = "incomplete", "no summary.json"
        else:
            self.status = str(s.get("status", "incomplete"))
            self.reason = str(s.get("reason", "")) if self.status != "complete" else ""
        self.best_bleu, self.best_step = number(s.get("best_dev_bleu")), s.get("best_step")
        if self.best_bleu is None:
            scored = [(number(v.get("bleu")), v.get("step")) for v in self.valid]
            scored = [b for b in scored if b[0] is not None]
            if scored:  # the first step that reached the maximum
                self.best_bleu = max(b for b, _ in scored)
                self.best_step = next(st for b, st in scored if b == self.best_bleu)
        self.test_bleu = number(s.get("test_bleu"))
        self.bytes_per_step = number(s.get("bytes_per_step"))
        if self.bytes_per_step is None:
            sent = [number(r.get("bytes_sent")) for r in self.log]
            sent = [b for b in sent if b is not None]
            self.bytes_per_step = sum(sent) / len(sent) if sent else None
        if not self.valid and self.log:
            note(f"{self.name}: no validation results (valid.jsonl missing or empty)")

    def label(self):
        tail = "" if self.status == "complete" else ", incomplete"
        nodes = "?" if self.nodes is None else self.nodes
        return f"{self.name} [{self.method}, {nodes}n{tail}]"

    def first_at(self, target):
        """The first validation row at or above target BLEU; None = not reached."""
        for v in self.valid:
            b = number(v.get("bleu"))
            if target is not None and b is not None and b >= target:
                return v
        return None

    def time_to(self, target, network):
        """(wall s, modeled s) of the first validation at or above target; None = not reached."""
        v = self.first_at(target)
        if v is None:
            return None
        modeled = v.get("modeled_time_s")
        modeled = number(modeled.get(network)) if isinstance(modeled, dict) else None
        return number(v.get("wall_s")), modeled


def series(rows, x_of, y_key):
    xs, ys = [], []
    for r in rows:
        x, y = x_of(r), number(r.get(y_key))
        if x is not None and y is not None:
            xs.append(x)
            ys.append(y)
    return xs, ys


def x_getters(network):
    def modeled(r):
        m = r.get("modeled_time_s")
        return number(m.get(network)) if isinstance(m, dict) else None
    return [("steps", "steps", lambda r: number(r.get("step"))),
            ("wall", "measured wall time", lambda r: number(r.get("wall_s"))),
            (f"modeled-{network}", f"modeled time ({network})", modeled)]


def time_unit(max_seconds):
    if max_seconds >= 2 * 3600:
        return "h", 3600.0
    if max_seconds >= 2 * 60:
        return "min", 60.0
    return "s", 1.0


def style(exp, color_of):
    return {"color": color_of(exp.method), "linestyle": NODE_STYLES.get(exp.nodes, "-.")}


def smooth(ys, window):
    import numpy as np
    kernel = np.ones(window) / window
    padded = np.concatenate([np.full(window - 1, ys[0]), np.asarray(ys, dtype=float)])
    return np.convolve(padded, kernel, mode="valid")


def curve_figure(plt, exps, rows_of, y_key, y_label, x_spec, title, path, color_of, raw_loss,
                 target=None, y_from_zero=False):
    tag, x_label, x_of = x_spec
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = []
    for e in exps:
        xs, ys = series(rows_of(e), x_of, y_key)
        if xs:
            drawn.append((e, xs, ys))
    if not drawn:
        plt.close(fig)
        return False
    scale, unit = 1.0, ""
    if tag != "steps":
        unit, scale = time_unit(max(max(xs) for _, xs, _ in drawn))
        x_label += f" [{unit}]"
    for e, xs, ys in drawn:
        xs = [x / scale for x in xs]
        st = style(e, color_of)
        # Per-step loss is noisy: show it faintly and a running mean on top.
        window = max(1, len(ys) // 40) if raw_loss else 1
        if window > 1:
            ax.plot(xs, ys, alpha=0.2, linewidth=0.7, **st)
            ax.plot(xs, smooth(ys, window), linewidth=1.6, label=e.label(), **st)
        else:
            ax.plot(xs, ys, linewidth=1.6, marker="" if raw_loss else "o", markersize=3,
                    label=e.label(), **st)
    if target is not None:
        ax.axhline(target, color="gray", linewidth=0.8, linestyle="--",
                   label=f"target {target:.2f}")
    if y_from_zero:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def bytes_figure(plt, exps, title, path, color_of):
    exps = [e for e in exps if e.bytes_per_step is not None]
    if not exps:
        return False
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.45 * len(exps)))
    positive = [e.bytes_per_step for e in exps if e.bytes_per_step > 0]
    floor = min(positive) / 10 if positive else 1.0
    for i, e in enumerate(exps):
        b = e.bytes_per_step
        if b > 0:
            ax.barh(i, b, left=0, color=color_of(e.method))
            ax.text(b, i, f" {human_bytes(b)}", va="center", fontsize=7)
        else:  # nothing sent (one node): a log axis cannot show a zero bar
            ax.text(floor, i, " 0 B (nothing sent)", va="center", fontsize=7)
    ax.set_yticks(range(len(exps)))
    ax.set_yticklabels([e.label() for e in exps], fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(left=floor / 2, right=max(positive) * 20 if positive else 10.0)
    ax.set_ylim(len(exps) - 0.5, -0.5)  # first experiment on top, zero-byte rows too
    ax.set_xlabel("bytes sent per node and step (log scale)")
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def human_bytes(b):
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b:.0f} B"


def fmt(x, digits=2, unit=""):
    return "n/a" if x is None else f"{x:.{digits}f}{unit}"


def ratio(ref, t):
    return f"{ref / t:.2f}x" if ref and t else "n/a"


def references(group, baseline):
    """(1-node reference, 4-node dense reference) of one model type."""
    by_name = sorted(group, key=lambda e: e.name)
    if baseline is not None:
        one = next((e for e in by_name if baseline in (e.name, os.path.basename(e.name))), None)
    else:
        ones = [e for e in by_name if e.nodes == 1]
        one = next((e for e in ones if e.method == "dense"), ones[0] if ones else None)
    dense4 = next((e for e in by_name if e.nodes == 4 and e.method == "dense"), None)
    return one, dense4


def write_summary(path, exps_by_model, targets, refs, args, figures, notes, virtual=()):
    """virtual: (row key, label) of each --profile's clock: two more columns each."""
    net = args.network
    out = ["# Results summary", "", "Produced by:", "",
           "    " + shlex.join([os.path.basename(sys.executable)] + sys.argv), ""]
    for model, (target, how) in targets.items():
        one, d4 = refs[model]
        out.append(f"- {model}: target BLEU {fmt(target)} ({how}); 1-node reference: "
                   f"{one.name if one else 'none'}; 4-node dense reference: "
                   f"{d4.name if d4 else 'none'}")
    out += ["", "Times are seconds; modeled time is on the " + net + " network model. "
            "Speed-ups are ratios of modeled time to the target BLEU." +
            (" Virtual time (scripts/vclock.py): the hardware profile's compute per step plus "
             "selection plus the ring model on the bytes each step sent, on the profile's "
             "network; it does not depend on the machine that trained." if virtual else ""), ""]
    head = ["experiment", "model", "nodes", "method", "steps", "best dev BLEU (step)",
            "test BLEU", "time to target, wall", f"time to target, modeled ({net})",
            "bytes/step", "speed-up vs 1-node", "speed-up vs 4-node dense", "status"]
    for _, label in virtual:
        head += [f"time to target, virtual ({label})", f"speed-up vs 4-node dense, virtual ({label})"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for model, group in exps_by_model.items():
        target = targets[model][0]
        one, d4 = refs[model]
        ref_one = one.time_to(target, net) if one else None
        ref_d4 = d4.time_to(target, net) if d4 else None
        for e in group:
            t = e.time_to(target, net)
            missed = "not reached" if e.valid else "n/a (no validation)"
            wall = missed if t is None else fmt(t[0], 1, " s")
            modeled = missed if t is None else fmt(t[1], 1, " s")
            best = "n/a" if e.best_bleu is None else f"{e.best_bleu:.2f} ({e.best_step})"
            nbytes = "n/a" if e.bytes_per_step is None else human_bytes(e.bytes_per_step)
            status = e.status + (f" ({e.reason})" if e.reason else "")
            cells = [e.name, e.model, "?" if e.nodes is None else str(e.nodes), e.method,
                     str(e.steps), best, fmt(e.test_bleu), wall, modeled, nbytes,
                     ratio(ref_one and ref_one[1], t and t[1]),
                     ratio(ref_d4 and ref_d4[1], t and t[1]), status]
            for key, _ in virtual:
                # row[key] is the virtual clock --profile added to each validation row
                hit, ref_hit = e.first_at(target), d4.first_at(target) if d4 else None
                tv = number(hit.get(key)) if hit else None
                ref_v = number(ref_hit.get(key)) if ref_hit else None
                cells += [missed if tv is None else fmt(tv, 2, " s"), ratio(ref_v, tv)]
            out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    out += ["", "## Figures", ""] + [f"- [{f}]({f})" for f in figures]
    if notes.lines:
        out += ["", "## Notes", ""] + ["- " + n for n in notes.lines]
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def virtual_and_band_figures(plt, args, exps, by_model, out_dir, color_of, notes):
    """--profile: curves against the virtual clock; --bands: mean +- sd over seeds.
    Returns (figures, [(row key, label) of each profile's virtual clock])."""
    figures, virtual = [], []
    x_specs = [("steps", "steps", lambda r: number(r.get("step")))]
    if args.profile:
        import vclock
        if args.profile_network not in vclock.PRESETS:
            notes(f"--profile-network {args.profile_network}: not a preset "
                  f"({', '.join(vclock.PRESETS)}); virtual clock figures skipped")
            return figures, virtual
        gbps, lat = vclock.PRESETS[args.profile_network]
        for path in args.profile:
            prof = vclock.load_profile(path)
            key = f"_virtual_{slug(prof['name'])}"
            for e in exps:
                try:
                    clock = vclock.RunClock(e.path)
                    c = vclock.profile_compute(prof, clock)[0]
                except (ValueError, KeyError, OSError, TypeError) as err:
                    notes(f"{e.name}: no virtual clock for profile {prof['name']} ({err})")
                    continue
                for r in e.valid + e.log:
                    s = number(r.get("step"))
                    if s is not None and s > 0:
                        r[key] = clock.time(int(s), c, gbps, lat, prof["selection"])[0]
            spec = (f"virtual-{slug(prof['name'])}-{args.profile_network}",
                    f"virtual time ({prof['name']}, {args.profile_network})",
                    lambda r, k=key: number(r.get(k)))
            x_specs.append(spec)
            virtual.append((key, f"{prof['name']}, {args.profile_network}"))
            for model, group in by_model.items():
                for kind, rows_of, ykey, label, raw in (
                        ("dev_ce", lambda e: e.valid, "dev_ce", "dev cross-entropy", False),
                        ("bleu", lambda e: e.valid, "bleu", "dev BLEU", False),
                        ("loss", lambda e: e.log, "train_loss", "train loss (per target token)", True)):
                    name = f"{slug(model)}-{kind}-vs-{spec[0]}.png"
                    if curve_figure(plt, group, rows_of, ykey, label, spec,
                                    f"{model}: {label} vs {spec[1]}", os.path.join(out_dir, name),
                                    color_of, raw):
                        figures.append(name)
    if not args.bands:
        return figures, virtual
    import speedup_map
    for model, variants in speedup_map.group_variants([e for e in exps if e.valid]).items():
        for ykey, label in (("dev_ce", "dev cross-entropy"), ("bleu", "dev BLEU")):
            for tag, x_label, x_of in x_specs:
                name = f"{slug(model)}-{ykey}-bands-vs-{tag}.png"
                if band_figure(plt, variants, ykey, label, x_label, x_of,
                               f"{model}: {label}, mean +- sd over seeds", os.path.join(out_dir, name),
                               color_of):
                    figures.append(name)
    return figures, virtual


def band_figure(plt, variants, ykey, y_label, x_label, x_of, title, path, color_of):
    import statistics
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = 0
    for v in variants:
        per_seed = []
        for run in v.runs:
            pts = {}
            for r in run.valid:
                s, x, y = number(r.get("step")), x_of(r), number(r.get(ykey))
                if s is not None and x is not None and y is not None:
                    pts[int(s)] = (x, y)
            per_seed.append(pts)
        common = sorted(set.intersection(*(set(p) for p in per_seed))) if per_seed else []
        if not common:
            continue
        xs = [statistics.mean(p[s][0] for p in per_seed) for s in common]
        ys = [statistics.mean(p[s][1] for p in per_seed) for s in common]
        st = {"color": color_of(v.method), "linestyle": NODE_STYLES.get(v.nodes, "-.")}
        ax.plot(xs, ys, linewidth=1.5, label=f"{v.name} [{v.method}, {v.nodes}n, {len(v.runs)} seed(s)]", **st)
        if len(per_seed) > 1:
            sd = [statistics.stdev(p[s][1] for p in per_seed) for s in common]
            ax.fill_between(xs, [y - d for y, d in zip(ys, sd)], [y + d for y, d in zip(ys, sd)],
                            color=st["color"], alpha=0.2, linewidth=0)
        drawn += 1
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--out", help="output folder (default: RESULTS_DIR/figures)")
    p.add_argument("--network", default="10gbe",
                   help="network of modeled_time_s to plot against (default 10gbe)")
    p.add_argument("--target-bleu", type=float,
                   help="target dev BLEU for time-to-target (default: 90%% of the best "
                        "BLEU over all runs of the same model type)")
    p.add_argument("--profile", action="append", metavar="P.json",
                   help="hardware profile: also plot against its virtual clock (repeatable)")
    p.add_argument("--profile-network", default="1gbe",
                   help="preset network of the virtual clock figures (default 1gbe)")
    p.add_argument("--bands", action="store_true",
                   help="mean +- sd over seeds (runs named ...-s<seed>) as shaded bands")
    p.add_argument("--baseline", metavar="NAME",
                   help="experiment (name or folder name) used as the 1-node reference "
                        "for its model type (default: the 1-node dense run)")
    p.add_argument("--only", metavar="REGEX",
                   help="plot only experiments whose name matches REGEX (Python re.search), "
                        "e.g. to draw a suite's main comparison without its sweeps")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"plot.py: error: {args.results_dir}: not a directory", file=sys.stderr)
        return 2
    notes = Notes()
    dirs = find_experiment_dirs(args.results_dir)
    if not dirs:
        print(f"plot.py: error: no experiments under {args.results_dir} (looked for "
              f"folders holding {', '.join(EXPERIMENT_FILES)})", file=sys.stderr)
        return 2
    exps = [Experiment(d, args.results_dir, notes) for d in dirs]
    if args.only is not None:
        try:
            only = re.compile(args.only)
        except re.error as e:
            print(f"plot.py: error: --only {args.only!r}: not a regular expression ({e})",
                  file=sys.stderr)
            return 2
        exps = [e for e in exps if only.search(e.name)]
        if not exps:
            print(f"plot.py: error: --only {args.only!r} matches no experiment under "
                  f"{args.results_dir}", file=sys.stderr)
            return 2
    exps.sort(key=lambda e: (e.model, e.nodes or 0, e.method, e.name))
    by_model = {}
    for e in exps:
        by_model.setdefault(e.model, []).append(e)
    if args.baseline is not None and not any(
            args.baseline in (e.name, os.path.basename(e.name)) for e in exps):
        print(f"plot.py: error: --baseline {args.baseline}: no such experiment (have: "
              f"{', '.join(e.name for e in exps)})", file=sys.stderr)
        return 2
    if not any(isinstance(r.get("modeled_time_s"), dict) and args.network in r["modeled_time_s"]
               for e in exps for r in e.log + e.valid) and any(e.log for e in exps):
        have = sorted({k for e in exps for r in e.log if isinstance(r.get("modeled_time_s"), dict)
                       for k in r["modeled_time_s"]})
        notes(f"network {args.network!r} is in no log (have: {', '.join(have) or 'none'})")
    targets, refs = {}, {}
    for model, group in by_model.items():
        refs[model] = references(group, args.baseline)
        if args.target_bleu is not None:
            targets[model] = (args.target_bleu, "--target-bleu")
        else:
            bests = [e.best_bleu for e in group if e.best_bleu is not None]
            targets[model] = ((0.9 * max(bests), f"90% of the best, {max(bests):.2f}") if bests
                              else (None, "no BLEU in any run"))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy  # noqa: F401  (smoothing)
    except ImportError as e:
        print(f"plot.py: error: {e}; run with a python3 that has matplotlib and numpy "
              f"(Debian: /usr/bin/python3 with python3-matplotlib)", file=sys.stderr)
        return 1
    out_dir = args.out or os.path.join(args.results_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    extra = iter(EXTRA_COLORS * 4)
    colors = dict(METHOD_COLORS)

    def color_of(method):
        if method not in colors:
            colors[method] = next(extra, "tab:gray")
        return colors[method]

    figures = []
    for model, group in by_model.items():
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in model)
        for x_spec in x_getters(args.network):
            for kind, rows_of, key, y_label, raw, target in (
                    ("loss", lambda e: e.log, "train_loss", "train loss (per target token)",
                     True, None),
                    ("bleu", lambda e: e.valid, "bleu", "dev BLEU", False, targets[model][0])):
                name = f"{safe}-{kind}-vs-{x_spec[0]}.png"
                title = f"{model}: {y_label} vs {x_spec[1]}"
                if curve_figure(plt, group, rows_of, key, y_label, x_spec, title,
                                os.path.join(out_dir, name), color_of, raw, target):
                    figures.append(name)
        name = f"{safe}-bytes-per-step.png"
        if bytes_figure(plt, group, f"{model}: bytes per step", os.path.join(out_dir, name),
                        color_of):
            figures.append(name)
        name = f"{safe}-divergence.png"
        div_x = ("steps", "step", lambda r: number(r.get("step")))
        if curve_figure(plt, group, lambda e: [r for r in e.log if "divergence" in r],
                        "divergence", "mean ||theta_n - mean theta|| before averaging", div_x,
                        f"{model}: divergence at averaging steps", os.path.join(out_dir, name),
                        color_of, False, y_from_zero=True):
            figures.append(name)
    more, virtual = virtual_and_band_figures(plt, args, exps, by_model, out_dir, color_of, notes)
    figures += more
    for model, (target, how) in targets.items():
        print(f"plot.py: {model}: target BLEU {fmt(target)} ({how})")
    write_summary(os.path.join(out_dir, "summary.md"), by_model, targets, refs, args,
                  figures, notes, virtual)
    print(f"plot.py: {len(exps)} experiments, {len(figures)} figures -> {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
