"""plot.py's summary.md: one row per run with time to a target dev BLEU (wall, modeled, and
virtual per --profile), bytes per step and speed-ups over the 1-node and 4-node dense runs."""
from .formatting import fmt, human_bytes, ratio
from .logfiles import number
from .targets import first_row


def time_to(e, target, network):
    """(wall s, modeled s) of e's first validation at or above target BLEU; None = not reached."""
    v = first_row(e.valid, "bleu", target)
    if v is None:
        return None
    modeled = v.get("modeled_time_s")
    modeled = number(modeled.get(network)) if isinstance(modeled, dict) else None
    return number(v.get("wall_s")), modeled


def default_target(group):
    """(target dev BLEU, how): 90% of the best dev BLEU over the model's runs."""
    bests = [e.best_bleu for e in group if e.best_bleu is not None]
    return ((0.9 * max(bests), f"90% of the best, {max(bests):.2f}") if bests
            else (None, "no BLEU in any run"))


def summary_lines(command, exps_by_model, targets, refs, network, figures, notes, virtual=()):
    """command: the "Produced by" line; targets {model: (BLEU, how)}; refs {model: (1-node,
    4-node dense)}; virtual: (row key, label) of each --profile's clock, whose virtual seconds
    plot.py stored in each validation row under that key (two more columns each)."""
    out = ["# Results summary", "", "Produced by:", "", "    " + command, ""]
    for model, (target, how) in targets.items():
        one, d4 = refs[model]
        out.append(f"- {model}: target BLEU {fmt(target)} ({how}); 1-node reference: "
                   f"{one.name if one else 'none'}; 4-node dense reference: "
                   f"{d4.name if d4 else 'none'}")
    out += ["", "Times are seconds; modeled time is on the " + network + " network model. "
            "Speed-ups are ratios of modeled time to the target BLEU." +
            (" Virtual time (scripts/vclock.py): the hardware profile's compute per step plus "
             "selection plus the ring model on the bytes each step sent, on the profile's "
             "network; it does not depend on the machine that trained." if virtual else ""), ""]
    head = ["experiment", "model", "nodes", "method", "steps", "best dev BLEU (step)",
            "test BLEU", "time to target, wall", f"time to target, modeled ({network})",
            "bytes/step", "speed-up vs 1-node", "speed-up vs 4-node dense", "status"]
    for _, label in virtual:
        head += [f"time to target, virtual ({label})", f"speed-up vs 4-node dense, virtual ({label})"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for model, group in exps_by_model.items():
        target = targets[model][0]
        one, d4 = refs[model]
        ref_one = time_to(one, target, network) if one else None
        ref_d4 = time_to(d4, target, network) if d4 else None
        for e in group:
            t = time_to(e, target, network)
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
                hit = first_row(e.valid, "bleu", target)
                ref_hit = first_row(d4.valid, "bleu", target) if d4 else None
                tv = number(hit.get(key)) if hit else None
                ref_v = number(ref_hit.get(key)) if ref_hit else None
                cells += [missed if tv is None else fmt(tv, 2, " s"), ratio(ref_v, tv)]
            out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    out += ["", "## Figures", ""] + [f"- [{f}]({f})" for f in figures]
    if notes.lines:
        out += ["", "## Notes", ""] + ["- " + n for n in notes.lines]
    return out
