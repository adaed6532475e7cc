"""The speed-up map figures (matplotlib passed in as plt): one panel per multi-node variant,
log2 speed-up over bandwidth x compute per step, 1.0x / 1.5x contours, presets and profiles."""
import math
import os

from .formatting import wrap
from .maps import B_RANGE, C_RANGE, speedup_grid
from .network import PAPER_TERMS
from .network import PRESETS
from .profiles import profile_compute

PROFILE_COLORS = ("tab:green", "tab:orange", "tab:purple", "tab:cyan")


def draw(plt, model, variants, d4, d1, hits, fsel, profiles, cs, bs, latency_us, key, target,
         how, out_dir, tag_suffix="", terms=PAPER_TERMS):
    """Writes <model>-speedup-map<tag>-vs-{dense4,1node}.png; returns the file names."""
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
        # the profiles' names go in one legend below the panels: written on each panel they ran
        # into each other where two profiles' compute per step is close
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol + 1.2, 3.2 * nrow + 1.6),
                                 squeeze=False)
        fig.subplots_adjust(bottom=0.6 / (3.2 * nrow + 1.6) + 0.1)
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
                grid = speedup_grid(h, rh, cs, bs, latency_us, fsel[v.name], fsel[ref.name], terms)
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
            for name, net in PRESETS.items():
                ax.axvline(net.gbps, color="0.3", linewidth=0.6, linestyle=":")
                ax.text(net.gbps, C_RANGE[1] * 0.6, name, fontsize=5, rotation=90, va="top")
            for prof, color in zip(profiles, PROFILE_COLORS):
                c = profile_compute(prof, (h if h.reached else rh).variant.clocks[0])[0]
                ax.axhline(c, color=color, linewidth=1.2, label=prof["name"])
                for s in prof.get("sensitivity", []):
                    if s != 1.0:
                        ax.axhline(c * s, color=color, linewidth=0.7, linestyle=":")
            ax.tick_params(labelsize=6)
        for ax in [a for row in axes for a in row][len(panels):]:
            ax.axis("off")
        for j in range(min(ncol, len(panels))):   # the lowest panel of each column
            axes[(len(panels) - 1 - j) // ncol][j].set_xlabel("bandwidth [Gbit/s]", fontsize=7)
        for row in axes:
            row[0].set_ylabel("compute per step [s]", fontsize=7)
        label = "dev CE <=" if key == "dev_ce" else "dev BLEU >="
        fig.suptitle(f"{model}: time-to-target speed-up over {title} ({label} {target:.3f}; {how}); "
                     f"latency {latency_us:g} us/hop"
                     + ("" if terms.source is None else
                        f", link eta {terms.efficiency:.2f} + {terms.overhead_us:.0f} us/hop")
                     + "; solid 1.0x, dashed 1.5x", fontsize=8)
        handles, labels = axes[0][0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=6, frameon=False,
                       title="compute per step of each hardware profile (dotted: its sensitivity "
                             "band)", title_fontsize=6)
        if mesh is not None:
            cb = fig.colorbar(mesh, ax=axes, shrink=0.8)
            cb.set_ticks([-2, -1, math.log2(2 / 3), 0, math.log2(1.5), 1, 2])
            cb.set_ticklabels(["0.25x", "0.5x", "0.67x", "1x", "1.5x", "2x", "4x"])
        name = f"{model}-speedup-map{tag_suffix}-vs-{tag}.png"
        fig.savefig(os.path.join(out_dir, name), dpi=110)
        plt.close(fig)
        names.append(name)
    return names
