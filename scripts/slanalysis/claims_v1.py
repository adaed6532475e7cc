"""The numbers behind each claim of PAPER.md from single runs (REPORT v1's tables): claim 1
(sparse-only vs dense), claim 2 (every other 4-node method vs sparse-only), claim 3 (modeled
time to a target), claim 4 (divergence at the averaging steps). Numbers, not verdicts."""
from .formatting import fmt, md_table, pct, ratio
from .logfiles import number
from .references import DENSE, plain_run
from .targets import Target

SPARSE_ONLY = "sparse"  # gradient dropping without local gradients: claims 1 and 2 compare with it


def last(rows, key):
    vals = [number(r.get(key)) for r in rows]
    vals = [v for v in vals if v is not None]
    return vals[-1] if vals else None


def tail_mean(rows, key, fraction=0.1):
    """Mean of key over the last `fraction` of the logged steps (train loss is noisy)."""
    vals = [number(r.get(key)) for r in rows]
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    n = max(1, int(len(vals) * fraction))
    return sum(vals[-n:]) / n


QUALITY_HEAD = ["experiment", "method", "nodes", "test BLEU (vs reference)", "best dev BLEU",
                "last dev CE (vs reference)", "train loss, last 10% of steps"]


def quality_row(e, ref):
    """experiment | test BLEU (vs ref) | best dev BLEU | last dev CE | train loss (last 10%)."""
    test = f"{fmt(e.test_bleu)} ({pct(e.test_bleu, ref.test_bleu) if ref else 'n/a'})"
    ce = last(e.valid, "dev_ce")
    ref_ce = last(ref.valid, "dev_ce") if ref else None
    return [e.name, e.method, str(e.nodes), test, fmt(e.best_bleu),
            f"{fmt(ce, 3)} ({pct(ce, ref_ce)})", fmt(tail_mean(e.log, "train_loss"), 3)]


def claim1(model, group):
    dense, sparse = plain_run(group, 4, DENSE), plain_run(group, 4, SPARSE_ONLY)
    out = [f"### {model}", ""]
    if not dense or not sparse:
        return out + ["(needs a 4-node dense and a 4-node sparse run)", ""]
    return out + md_table(QUALITY_HEAD, [quality_row(dense, dense), quality_row(sparse, dense)]) + [""]


def claim2(model, group):
    """Every 4-node run of a method other than dense and sparse-only (the sparse+local
    variants, fedavg, and whatever methods the logs name) against sparse-only."""
    sparse, dense = plain_run(group, 4, SPARSE_ONLY), plain_run(group, 4, DENSE)
    runs = [e for e in group if e.nodes == 4 and e.method not in (DENSE, SPARSE_ONLY)]
    out = [f"### {model} (reference: 4-node sparse-only)", ""]
    if not sparse or not runs:
        return out + ["(needs a 4-node sparse run and sparse+local runs)", ""]
    rows = [quality_row(e, sparse) for e in [sparse] + runs]
    if dense:
        rows.insert(0, quality_row(dense, sparse))
    return out + md_table(QUALITY_HEAD, rows) + [""]


def modeled_at(row, net):
    m = row.get("modeled_time_s") if row else None
    return number(m.get(net)) if isinstance(m, dict) else None


def claim3_targets(group, target_bleu=None, target_ce=None):
    """The targets of claim 3: the given ones, else 90% of 4-node dense's best dev BLEU and
    110% of its last dev CE."""
    dense4 = plain_run(group, 4, DENSE)
    targets = []
    if target_bleu is not None:
        targets.append(Target("bleu", target_bleu, "--target-bleu"))
    elif dense4 and dense4.best_bleu is not None:
        targets.append(Target("bleu", 0.9 * dense4.best_bleu, "90% of 4-node dense's best"))
    final_ce = last(dense4.valid, "dev_ce") if dense4 else None
    if target_ce is not None:
        targets.append(Target("dev_ce", target_ce, "--target-ce"))
    elif final_ce is not None:
        targets.append(Target("dev_ce", 1.1 * final_ce, "110% of 4-node dense's last"))
    return targets


def claim3(model, group, target, networks):
    one, dense4 = plain_run(group, 1, DENSE), plain_run(group, 4, DENSE)
    out = [f"### {model}: time to {target.label()}", ""]
    head = ["experiment", "method", "nodes", "steps to target", "wall s to target"]
    for net in networks:
        head += [f"modeled s ({net})", f"vs 4-node dense ({net})", f"vs 1 node ({net})"]
    ref4 = target.first(dense4) if dense4 else None
    ref1 = target.first(one) if one else None
    rows = []
    for e in sorted(group, key=lambda e: (e.nodes or 0, e.method)):
        hit = target.first(e)
        row = [e.name, e.method, str(e.nodes), "not reached" if hit is None else str(hit.get("step")),
               "-" if hit is None else fmt(number(hit.get("wall_s")), 1)]
        for net in networks:
            mine = modeled_at(hit, net)
            row += ["-" if not mine else fmt(mine, 1),
                    ratio(modeled_at(ref4, net), mine), ratio(modeled_at(ref1, net), mine)]
        rows.append(row)
    out += md_table(head, rows)
    out += ["", "Modeled time = measured compute of the slowest node + PAPER.md's ring formulas "
            "on the exact bytes; speed-up = reference's modeled time / this run's.", ""]
    return out


def claim4(model, group):
    out = [f"### {model}", ""]
    rows = []
    for e in (e for e in group if (e.nodes or 0) > 1):  # one node has nothing to diverge from
        points = [r for r in e.log if number(r.get("divergence")) is not None]
        if not points:
            continue
        before = [number(r["divergence"]) for r in points]
        after = [number(r.get("divergence_after")) for r in points]
        after = [a for a in after if a is not None]
        rows.append([e.name, e.method, str(len(points)),
                     ", ".join(f"{r.get('step')}: {fmt(b, 4)}" for r, b in zip(points, before)),
                     fmt(max(after), 6) if after else "n/a"])
    if not rows:
        return out + ["(no run logged an averaging step)", ""]
    head = ["experiment", "method", "averaging steps", "divergence before averaging (step: value)",
            "max divergence after"]
    return out + md_table(head, rows) + ["", "Divergence = mean over nodes n of the L2 norm "
                                         "of theta_n - mean_m theta_m.", ""]


def claims_sections(by_model, target_bleu=None, target_ce=None, networks=("1gbe", "10gbe")):
    """The markdown lines of claims 1-4 for {model: runs in experiment.sort_key order}."""
    out = ["## Claim 1: sparse-only (gradient dropping) vs dense, 4 nodes", ""]
    for model, group in by_model.items():
        out += claim1(model, group)
    out += ["## Claim 2: sparse + local gradients vs sparse-only, 4 nodes", ""]
    for model, group in by_model.items():
        out += claim2(model, group)
    out += ["## Claim 3: speed to a target quality", ""]
    for model, group in by_model.items():
        targets = claim3_targets(group, target_bleu, target_ce)
        if not targets:
            out += [f"### {model}", "", "(no target: pass --target-bleu or --target-ce)", ""]
        for target in targets:
            out += claim3(model, group, target, networks)
    out += ["## Claim 4: divergence of the node copies at the averaging steps", ""]
    for model, group in by_model.items():
        out += claim4(model, group)
    return out
