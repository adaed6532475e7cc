"""The budget figure of reproduction v3: 4-node dense's dev CE and dev BLEU against updates for
every budget run, phase 2's at phase 1's lr (dashed) and the v3.1 re-check's at the lr at S
(solid), each annealed to 0 at its own end; it shows what `analyze.py convergence` states in
numbers: whether twice the updates still pay. Input: a plan.json dict (scripts/repro_v3.py) and
the results folder; plt: matplotlib.pyplot (commands.common.pyplot)."""
import math
import os

from .formatting import slug
from .logfiles import read_jsonl


def budget_runs(plan, model):
    """[(S, run name, lr or None, phase 2b?)] of the budget runs plan.json names, phase 2's
    first, each by S ascending."""
    out = []
    lr = ((plan.get("lr") or {}).get("4node-dense") or {}).get("chosen_lr")
    for s in sorted((plan.get("budget") or {}).get("runs") or {}, key=int):
        out.append((int(s), f"{model}-4node-dense-S{s}-s1", lr, False))
    again = plan.get("budget_at_lr_at_S") or {}
    for s, row in sorted((again.get("runs") or {}).items(), key=lambda kv: int(kv[0])):
        if row.get("run"):
            out.append((int(s), row["run"], again.get("lr"), True))
    return out


def curve(results_dir, model, run, key):
    """[(update, value)] of a run's validations that hold a finite `key` (dev_ce, bleu)."""
    rows = read_jsonl(os.path.join(results_dir, model, run, "valid.jsonl"))
    return [(r["step"], r[key]) for r in rows
            if isinstance(r.get(key), (int, float)) and math.isfinite(r[key]) and "step" in r]


def draw(plt, model, plan, results_dir, out_dir):
    """One figure, dev CE and dev BLEU panels; returns its file name, or None when no budget run
    has a validation yet."""
    runs = [(s, run, lr, again, curve(results_dir, model, run, "dev_ce"),
             curve(results_dir, model, run, "bleu")) for s, run, lr, again in budget_runs(plan, model)]
    runs = [r for r in runs if r[4]]
    if not runs:
        return None
    sizes = sorted({r[0] for r in runs})
    cmap = plt.get_cmap("viridis")
    colour = {s: cmap(i / max(1, len(sizes) - 1) * 0.85) for i, s in enumerate(sizes)}
    fig, (ax_ce, ax_bleu) = plt.subplots(1, 2, figsize=(11, 4))
    for s, run, lr, again, ce, bleu in runs:
        style = "-" if again else "--"
        label = f"S = {s}, lr {lr:g}" if lr is not None else f"S = {s}"
        for ax, pts in ((ax_ce, ce), (ax_bleu, bleu)):
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colour[s], lw=1,
                        label=label + (" (re-check at the lr at S)" if again else ""))
                ax.plot([pts[-1][0]], [pts[-1][1]], "o", color=colour[s], ms=4)
    # the ends are what the rule compares: keep them readable rather than the first updates
    lowest = min(r[4][-1][1] for r in runs)
    ax_ce.set_ylim(lowest * 0.97, lowest * 1.8)
    finals = [r[5][-1][1] for r in runs if r[5]]
    if finals:
        ax_bleu.set_ylim(max(finals) * 0.6, max(finals) * 1.04)
    for ax, what in ((ax_ce, "dev CE"), (ax_bleu, "dev BLEU")):
        ax.set_xlabel("updates")
        ax.set_ylabel(what)
        ax.grid(alpha=0.3)
    ax_ce.legend(fontsize=7)
    S = (plan.get("budget") or {}).get("S")
    fig.suptitle(f"{model}: 4-node dense budget runs, each annealed to 0 at its own end "
                 f"(dashed: phase 2 at phase 1's lr; solid: re-check at the lr at S; S = {S})",
                 fontsize=9)
    fig.tight_layout()
    name = f"{slug(model)}-budget.png"
    fig.savefig(f"{out_dir}/{name}", dpi=110)
    plt.close(fig)
    return name
