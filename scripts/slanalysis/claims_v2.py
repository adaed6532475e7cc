"""The tables of the reproduction-v2 suite (configs/repro/, issue 13) over seed variants:
mean +- sd of the metrics, dense's plateau and budget check, plateau targets, steps to target
and virtual-clock time to target per hardware profile x preset network."""
import statistics

from .convergence import find_long_run
from .formatting import fmt, md_table, mean_sd, ratio
from .hits import Hit
from .network import PRESETS
from .references import variant_references
from .targets import best_of, plateau, target_for


def plateau_control(d4, variants):
    """The suite's `<d4>-2xS` run: 4-node dense given twice the updates. If its last dev CE is
    within 1% of the S run's, more updates would not have moved the plateau."""
    ctl = find_long_run(d4, variants)
    if ctl is None:
        return [f"(no `{d4.name}-2xS` run: the budget S is not checked against a longer run)", ""]
    mine = [s[-1][1] for s in d4.values("dev_ce") if s]
    theirs = [s[-1][1] for s in ctl.values("dev_ce") if s]
    if not mine or not theirs or ctl.steps < 2 * d4.steps:
        return [f"`{ctl.name}` is not finished ({ctl.steps} of {2 * d4.steps} updates): the budget "
                "check waits for it.", ""]
    a, b = statistics.mean(mine), statistics.mean(theirs)
    rel = (b - a) / a
    verdict = ("S is enough (< 1%)" if abs(rel) < 0.01
               else "S is NOT enough: more updates still lower dev CE by >= 1%")
    return [f"Budget check: `{ctl.name}` ({ctl.steps} updates) ends at dev CE {b:.3f} vs "
            f"{a:.3f} after {d4.steps} ({100 * rel:+.2f}%) -> {verdict}.", ""]


def seed_table(variants):
    rows = []
    for v in variants:
        ce = v.values("dev_ce")
        bl = v.values("bleu")
        rows.append([v.name, v.method, str(v.nodes), str(len(v.runs)), str(v.steps),
                     mean_sd([s[-1][1] if s else None for s in ce]),
                     mean_sd([best_of(s, "dev_ce")[0] for s in ce]),
                     mean_sd([best_of(s, "bleu")[0] for s in bl], 2),
                     mean_sd([r.test_bleu for r in v.runs], 2)])
    return md_table(["variant", "method", "nodes", "seeds", "steps", "last dev CE", "best dev CE",
                     "best dev BLEU", "test BLEU"], rows)


def target_section(model, variants, d4, d1, key, target, how, profiles):
    digits = 3 if key == "dev_ce" else 2
    sign = "<=" if key == "dev_ce" else ">="
    label = "dev CE" if key == "dev_ce" else "dev BLEU"
    out = [f"#### {model}: {label} {sign} {target:.{digits}f} ({how})", ""]
    hits = {v.name: Hit(v, key, target) for v in variants}
    hd4 = hits[d4.name]
    if hd4.seed_steps:
        frac = [s / d4.steps for s in hd4.seed_steps]
        out += [f"4-node dense reaches it at step(s) {', '.join(map(str, hd4.seed_steps))}"
                f" of {d4.steps} ({', '.join(f'{100 * f:.0f}%' for f in frac)} of its run).", ""]
    rows = []
    for v in variants:
        h = hits[v.name]
        rows.append([v.name, str(len(v.runs)),
                     mean_sd([float(s) for s in h.seed_steps], 0) if h.seed_steps else "-",
                     "reached by every seed" if h.reached else h.why_not()])
    out += md_table(["variant", "seeds", "steps to target", "status"], rows) + [""]
    head = ["profile", "network", "variant", "virtual s to target", "vs 4-node dense", "vs 1 node"]
    rows = []
    for prof in profiles:
        for name, net in PRESETS.items():
            ref = {}
            for r in (d4, d1):
                if r is not None and hits[r.name].reached:
                    ref[r.name] = hits[r.name].profile_time(prof, net)
            for v in variants:
                h = hits[v.name]
                if not h.reached:
                    continue
                per_seed = h.profile_times(prof, net)
                tm = sum(per_seed) / len(per_seed)
                rows.append([prof["name"], name, v.name, mean_sd(per_seed, 1),
                             ratio(ref.get(d4.name), tm),
                             ratio(ref.get(d1.name) if d1 else None, tm)])
    out += md_table(head, rows) + ["", "Virtual time = t c + SEL(t) + X(t) 8/B + Y(t) a "
                                   "(scripts/vclock.py) at the first validation reaching the "
                                   "target; speed-up = ratio of the means over seeds.", ""]
    return out


def v2_sections(groups, profiles, ce_margin=0.02, bleu_fraction=0.95):
    """groups: {model: [Variant]} (variants.group_variants of the runs with validations)."""
    out = ["## v2: variants over seeds (mean +- sd)", ""]
    for model, variants in groups.items():
        out += [f"### {model}", ""] + seed_table(variants) + [""]
        d4, d1 = variant_references(variants)
        if d4 is None:
            out += ["(no 4-node dense variant: no plateau, no targets)", ""]
            continue
        p_ce, ch = plateau(d4, "dev_ce")
        p_bl, _ = plateau(d4, "bleu")
        flat = ch is not None and abs(ch) < 0.01
        out += [f"Plateau of `{d4.name}` (mean over its last 20% of validations, mean over "
                f"seeds): dev CE {fmt(p_ce, 3)}, dev BLEU {fmt(p_bl, 2)}; relative "
                f"change of dev CE over that window {'n/a' if ch is None else f'{100 * ch:+.2f}%'}"
                f" -> {'plateaued (< 1%)' if flat else 'NOT plateaued (>= 1%)'}.", ""]
        out += plateau_control(d4, variants)
        for key in ("dev_ce", "bleu"):
            target, how = target_for(d4, key, "plateau", None, ce_margin, bleu_fraction)
            if target is None:
                continue
            out += target_section(model, variants, d4, d1, key, target, how, profiles)
    return out
