"""Convergence figures (matplotlib; the caller passes pyplot as plt, so importing this module
needs no plotting library): curves per run against steps / wall / modeled / virtual time,
bytes per step, and mean +- sd bands over seeds."""
import statistics

from .formatting import human_bytes
from .logfiles import number

# Fixed colours for the methods known today, so the same method looks the same in every
# figure; any other method label a log carries gets the next free colour (MethodColors).
METHOD_COLORS = {"dense": "black", "sparse": "tab:red", "sparse+sum": "tab:orange",
                 "sparse+partial": "tab:blue", "sparse+error": "tab:green",
                 "fedavg": "tab:purple"}
EXTRA_COLORS = ["tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
NODE_STYLES = {1: ":", 2: "--", 4: "-"}


class MethodColors:
    """method label -> colour, stable within one command's figures."""

    def __init__(self):
        self.colors = dict(METHOD_COLORS)
        self.extra = iter(EXTRA_COLORS * 4)

    def __call__(self, method):
        if method not in self.colors:
            self.colors[method] = next(self.extra, "tab:gray")
        return self.colors[method]


def series(rows, x_of, y_key):
    xs, ys = [], []
    for r in rows:
        x, y = x_of(r), number(r.get(y_key))
        if x is not None and y is not None:
            xs.append(x)
            ys.append(y)
    return xs, ys


def step_of(r):
    return number(r.get("step"))


def x_getters(network):
    """(file tag, axis label, row -> x) for steps, wall time and modeled time on network."""
    def modeled(r):
        m = r.get("modeled_time_s")
        return number(m.get(network)) if isinstance(m, dict) else None
    return [("steps", "steps", step_of),
            ("wall", "measured wall time", lambda r: number(r.get("wall_s"))),
            (f"modeled-{network}", f"modeled time ({network})", modeled)]


def time_unit(max_seconds):
    if max_seconds >= 2 * 3600:
        return "h", 3600.0
    if max_seconds >= 2 * 60:
        return "min", 60.0
    return "s", 1.0


def style(method, nodes, color_of):
    return {"color": color_of(method), "linestyle": NODE_STYLES.get(nodes, "-.")}


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
        st = style(e.method, e.nodes, color_of)
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


def band_figure(plt, variants, ykey, y_label, x_label, x_of, title, path, color_of):
    """Mean over seeds at the validation steps every seed has, with a +- 1 sd band."""
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
        st = style(v.method, v.nodes, color_of)
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
