"""The figure of reproduction v3's speed-up against the target (matplotlib passed in as plt):
per model, profile and network, one panel per reference (4-node dense, 1 node), a line (the
point estimate) and a band (the bootstrap interval) per variant."""
import math
import os

from .curves import style
from .formatting import slug
from .target_sweep import INF, profile_tag
from .variants import running

# The paper's claim 3: up to 1.5x over 4-node dense, 3.5x over one node.
PAPER_CLAIM = {"4-node dense": 1.5, "1 node": 3.5}
# Variants of one method share its colour; the marker tells them apart.
MARKERS = "os^vDPX<>"


def finite(x):
    return None if x is None or x == INF or x == 0.0 else x


def draw(plt, model, sweep, factors, profile, network, d1, shown, out_dir, color_of, tag=""):
    """Writes <model>-speedup-vs-target-<metric>-<profile>-<net><tag>.png (<profile>: the
    profile file's name without .json); returns its name
    (None when no variant has a speed-up to draw)."""
    refs = [(r, t) for r, t in ((sweep.d4, "4-node dense"), (d1, "1 node")) if r is not None]
    fig, axes = plt.subplots(1, len(refs), figsize=(6.0 * len(refs), 4.6), squeeze=False)
    drawn = 0
    label = "dev CE" if sweep.key == "dev_ce" else "dev BLEU"
    for ax, (ref, title) in zip(axes[0], refs):
        for i, v in enumerate(shown):
            if v is ref or running(v):
                continue
            cells = [sweep.cell(f, profile, network, v, ref) for f in factors]
            ys = [finite(c.point) for c in cells]
            if all(y is None for y in ys):
                continue
            st = style(v.method, v.nodes, color_of)
            ax.plot(factors, [math.nan if y is None else y for y in ys],
                    marker=MARKERS[i % len(MARKERS)], markersize=3.5, linewidth=1.4, label=f"{v.name} [{len(v.runs)} seed(s)]", **st)
            lo = [finite(c.low) if y is not None else None for c, y in zip(cells, ys)]
            hi = [finite(c.high) if y is not None else None for c, y in zip(cells, ys)]
            ax.fill_between(factors, [math.nan if x is None else x for x in lo],
                            [math.nan if x is None else x for x in hi], color=st["color"],
                            alpha=0.15, linewidth=0)
            drawn += 1
        ax.axhline(1.0, color="0.3", linewidth=0.8)
        ax.axhline(PAPER_CLAIM[title], color="0.3", linewidth=0.8, linestyle="--")
        ax.text(0.01, PAPER_CLAIM[title], f"paper: {PAPER_CLAIM[title]:g}x", fontsize=6,
                va="bottom", transform=ax.get_yaxis_transform())
        ax.set_title(f"over {title} (`{ref.name}`)", fontsize=8)
        ax.set_xlabel(f"target: x {label} of `{sweep.d4.name}`'s final "
                      f"({sweep.reference_value():.3f})", fontsize=7)
        ax.set_ylabel("speed-up (virtual time to target)", fontsize=7)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=6)
    if not drawn:
        plt.close(fig)
        return None
    # one legend below both panels (a variant has one entry even where it is in one panel
    # only): inside the panels it covered the lines
    entries = {}
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(lab, h)
    ncol = 2 if len(refs) == 1 else 3
    rows = (len(entries) + ncol - 1) // ncol
    below = (0.16 * rows + 0.25) / (4.6 + 0.16 * rows + 0.25)
    fig.set_size_inches(6.0 * len(refs), 4.6 + 0.16 * rows + 0.25)
    fig.legend(list(entries.values()), list(entries), loc="lower center", ncol=ncol, fontsize=6,
               frameon=False)
    fig.suptitle(f"{model}: speed-up against the target, {profile['name']}, {network.name}\n"
                 f"band: {100 * sweep.level:.0f}% bootstrap interval over seeds "
                 f"({sweep.reps} replicates; none for a variant of 1 seed)", fontsize=8)
    fig.tight_layout(rect=(0, below, 1, 1))
    name = f"{slug(model)}-speedup-vs-target-{slug(label)}-{slug(profile_tag(profile))}-{network.name}{tag}.png"
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    plt.close(fig)
    return name
