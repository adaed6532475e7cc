"""The lr-at-S figure of reproduction v3 (the v3.1 amendment's evidence): per cell, final dev
CE against the learning rate at phase 1's short budget (1500 updates) and at S (phase 1b, the
cell's own length), with each choice marked. Input: a plan.json dict (scripts/repro_v3.py);
plt: matplotlib.pyplot (commands.common.pyplot)."""
import math

from .formatting import slug


def points(table):
    """[(lr, final dev CE)] of one method's or cell's row, lr ascending, diverged runs left out."""
    rows = [(float(k), v) for k, v in (table.get("final_dev_ce") or {}).items()]
    return sorted((lr, ce) for lr, ce in rows if isinstance(ce, (int, float)) and math.isfinite(ce))


def draw(plt, model, plan, out_dir, cells):
    """One figure, a panel per cell in `cells` (names of plan["lr_at_S"]); returns its file name,
    or None when phase 1b has no finished point yet."""
    at_s, short = plan.get("lr_at_S") or {}, plan.get("lr") or {}
    shown = [c for c in cells if points(at_s.get(c, {}))]
    if not shown:
        return None
    cols = min(4, len(shown))
    rows = (len(shown) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    for ax in axes.flat[len(shown):]:
        ax.axis("off")
    S = (plan.get("budget") or {}).get("S")
    for ax, cell in zip(axes.flat, shown):
        row = at_s[cell]
        # the method whose phase-1 sweep set the cell's starting lr (the two 1-node cells share
        # 1node-dense's)
        method = row.get("method") or (cell if cell in short else
                                       "1node-dense" if cell.startswith("1node-dense") else None)
        for table, label, style in ((short.get(method, {}), "1500 updates (phase 1)", "o--"),
                                    (row, "at S (phase 1b)", "s-")):
            pts = points(table)
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, ms=4, label=label)
            chosen = table.get("chosen_lr")
            hit = [p for p in pts if chosen is not None and math.isclose(p[0], chosen)]
            if hit:
                ax.plot([hit[0][0]], [hit[0][1]], "k*", ms=10)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{cell} (phase 1b: {row.get('steps', S)} updates)", fontsize=7)
        ax.set_xlabel("peak lr", fontsize=7)
        ax.set_ylabel("final dev CE", fontsize=7)
        ax.tick_params(labelsize=6)
    axes.flat[0].legend(fontsize=6)
    fig.suptitle(f"{model}: final dev CE against the lr, at 1500 updates and at S (* = chosen)",
                 fontsize=9)
    fig.tight_layout()
    name = f"{slug(model)}-lr-at-S.png"
    fig.savefig(f"{out_dir}/{name}", dpi=110)
    plt.close(fig)
    return name
