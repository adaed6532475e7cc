"""Phase 4's figure (reproduction v3): speed-up over one node against the number of nodes, a
line per method and network beside the ideal N, then final dev CE and the speed-up over 4-node
dense against the drop ratio; on one hardware profile (the assumed GPU class in the report).
Input: a phase4.Phase4; plt: matplotlib.pyplot (commands.common.pyplot)."""
import math

from .formatting import slug
from .target_figure import finite

STYLES = ("-", "--", ":", "-.")


def draw(plt, ph, profile, networks, out_dir, color_of, tag=""):
    """Writes <model>-scaling<tag>.png; returns its name, or None when no point has a time yet."""
    if ph.target is None:
        return None
    fig, (ax_n, ax_ce, ax_rho) = plt.subplots(1, 3, figsize=(13, 4))
    drawn = False
    nodes = sorted({n for n, _, _ in ph.scaling})
    ax_n.plot(nodes, nodes, color="0.6", lw=1, label="ideal (N)")
    missing = set()
    for label in ("dense", "sparse+partial"):
        pts = [(n, p) for n, lab, p in ph.scaling if lab in (label, "both")]
        for style, net in zip(STYLES, networks):
            xy = [(n, 1.0 if n == 1 else ph.over(ph.one(), p, profile, net)) for n, p in pts]
            missing |= {f"{n}-node {label}" for n, y in xy if not finite(y)}
            if sum(finite(y) is not None for _, y in xy) > 1:
                # a point without a time breaks the line (nan) rather than being bridged
                ax_n.plot([x for x, _ in xy], [y if finite(y) else math.nan for _, y in xy],
                          style, marker="o", ms=4, color=color_of(label), label=f"{label}, {net.name}")
                drawn = True
    if missing:
        ax_n.set_title("no time to the target: " + ", ".join(sorted(missing)), fontsize=8)
    rhos = [(float(r), p) for r, p in ph.rho if p.final is not None]
    if rhos:
        ax_ce.plot([1 - r for r, _ in rhos], [p.final for _, p in rhos], "o-",
                   color=color_of("sparse+partial"))
        ax_ce.axhline(ph.target / ph.factor, color="0.5", lw=1, ls="--",
                      label="4-node dense, mean final")
        ax_ce.legend(fontsize=7)
        drawn = True
    missing = set()
    for style, net in zip(STYLES, networks):
        xy = [(1 - float(r), ph.over(ph.dense4, p, profile, net)) for r, p in ph.rho]
        missing |= {f"rho {1 - x:g}" for x, y in xy if not finite(y)}
        xy = [(x, y) for x, y in xy if finite(y)]
        if xy:
            ax_rho.plot([x for x, _ in xy], [y for _, y in xy], style, marker="o", ms=4,
                        color=color_of("sparse+partial"), label=net.name)
    ax_rho.axhline(1.0, color="0.6", lw=1)
    if missing:
        ax_rho.set_title("no time to the target: " + ", ".join(sorted(missing)), fontsize=8)
    ax_n.set(xlabel="nodes N", ylabel="speed-up over one node to the target", xticks=nodes)
    for ax, what in ((ax_ce, "final dev CE"), (ax_rho, "speed-up over 4-node dense")):
        ax.set_xscale("log")
        ax.set(xlabel="1 - rho (fraction of values sent)", ylabel=what)
    for ax in (ax_n, ax_ce, ax_rho):
        ax.grid(alpha=0.3)
    ax_n.legend(fontsize=7)
    if ax_rho.lines[1:]:
        ax_rho.legend(fontsize=7)
    if not drawn:
        plt.close(fig)
        return None
    fig.suptitle(f"{ph.model}: phase 4, seed 1 of each run; target dev CE {ph.target:.4f} "
                 f"(x{ph.factor:g} of 4-node dense's mean final); {profile['name']}", fontsize=9)
    fig.tight_layout()
    name = f"{slug(ph.model)}-scaling{tag}.png"
    fig.savefig(f"{out_dir}/{name}", dpi=110)
    plt.close(fig)
    return name
