"""The markdown of `analyze.py claims-v3`: claims_v3.evaluate's document as tables and verdict
lines (one block per claim: the verdict word, the rule in one line, the numbers behind it and,
while pending, what is still missing)."""
import os

from .claims_v3 import CELLS, CLAIM3_PROFILE, FEDAVG, LABEL, LOCAL, MODELS, pending_reason
from .formatting import fmt, md_table, mean_sd


def num(x, d=3):
    if x == "inf":
        return "inf"
    return fmt(x, d)


def stat_text(s, d):
    return mean_sd(s["values"], d)


def pct(x):
    return "n/a" if x is None else f"{100 * x:+.2f}%"


def yes_no(flag, yes, no):
    return "" if flag is None else (yes if flag else no)


def holds_text(flag):
    return "not judged yet" if flag is None else ("holds" if flag else "does not hold")


def steps_line(steps):
    """'s1 1234, s2 never' of {seed: interpolated step or None}."""
    return ", ".join(f"s{s} {'never' if x is None else num(x, 0)}"
                     for s, x in steps.items()) or "no seed yet"


def cells_table(mdoc, keys):
    rows = []
    for k in keys:
        c = mdoc["cells"][k]
        n = f"{len(c['complete_seeds'])}/{len(c['expected_seeds'])}"
        miss = ", ".join(f"s{s} {x['state']}" for s, x in c["seeds"].items()
                         if x["state"] != "complete")
        if c.get("untuned"):
            miss = "its lr at S not chosen yet (v3.1 phase 1b)" + (f"; {miss}" if miss else "")
        rows.append([c["label"], f"`{c['name']}`", n, stat_text(c["final_dev_ce"], 3),
                     stat_text(c["test_bleu"], 2), stat_text(c["test_chrf"], 2), miss or "-"])
    return md_table(["cell", "runs", "seeds done", "final dev CE", "test BLEU", "test chrF",
                     "not complete"], rows)


def verdict_block(title, c, numbers):
    lines = [f"**{title}: {c['verdict']}**", "", f"- rule: {c['rule']}"]
    lines += [f"- {x}" for x in numbers]
    if c["verdict"] == "pending":
        if c.get("diverged"):
            lines.append("- pending because " + pending_reason(c["missing"], c["diverged"]))
        if c.get("missing"):
            lines.append("- still missing:")
            lines += [f"  - {x}" for x in c["missing"]]
    return lines + [""]


def judged(holds):
    return {True: "holds", False: "does not hold", None: "not judged yet"}[holds]


def part_text(cl, key, model):
    """One model's part of a claim, in a few words, from claims_v3.evaluate's dict."""
    c = cl[key]
    if key == "1a":
        return judged(c["models"][model].get("holds"))
    if key == "1b":   # one check over both models: each model's loss and spread
        r = c["models"].get(model) or {}
        if r.get("loss") is None:
            return "no loss yet"
        sd = r.get("per_seed_loss_sd")
        return f"loss {r['loss']:.4f}" + (f", sd {sd:.4f}" if sd is not None else "")
    if key == "2":
        return judged(c[model].get("holds"))
    if key == "3":
        h = c["models"][model].get("holds") or {}
        if not h:
            return "not judged yet"
        return (f"over 4-node dense: {judged(h.get('dense4'))}; "
                f"over 1 node: {judged(h.get('one_node'))}")
    runs = [r for r in c["runs"].values() if r.get("model") == model]
    return f"{sum(bool(r.get('holds')) for r in runs)} of {len(runs)} complete runs"


def markdown(doc, command):
    cl = doc["claims"]
    out = ["# Reproduction v3: the claims' verdicts", "", "Produced by:", "", "    " + command, "",
           "Rules: configs/repro-v3/README.md, \"Analysis (fixed here, before the runs)\", applied "
           "as slanalysis/claims_v3.py's docstring reads them (pending = a seed the rule needs is "
           "not complete yet; numbers shown before that are over the complete seeds so far).", ""]
    for m in MODELS:
        md = doc["models"][m]
        out.append(f"- {m}: S = {md['S']} ({md['S_source']})" if md["S"] else
                   f"- {m}: S {md['S_source']}: every cell of this model is pending")
    out += ["", "## Verdicts", "",
            "Each model's part of the claim beside the verdict (a verdict needs every part; "
            "\"not judged yet\": a seed the part needs is missing):", ""]
    rows = [["1 (a) gradient dropping damages BLEU", "1a"],
            ["1 (b) the Transformer much more than the RNN", "1b"],
            ["2 the local gradient restores / speeds up convergence", "2"],
            ["3 1.5x over 4-node dense, 3.5x over 1 node", "3"],
            ["4 the copies drift, averaging resets them", "4"]]
    out += md_table(["claim"] + [f"{m} part" for m in MODELS] + ["verdict"],
                    [[title] + [part_text(cl, key, m) for m in MODELS] + [cl[key]["verdict"]]
                     for title, key in rows]) + [""]

    out += ["## Final quality per cell (mean +- sd over complete seeds)", ""]
    for m in MODELS:
        md = doc["models"][m]
        out += [f"### {m}" + (f" (S = {md['S']})" if md["S"] else ""), ""]
        if not md["S"]:
            out += [f"(S {md['S_source']})", ""]
            continue
        out += cells_table(md, CELLS) + [""]

    out += ["## Claim 1", ""]
    nums = []
    for m in MODELS:
        r = cl["1a"]["models"][m]
        if "dense_test_bleu" in r:
            nums.append(f"{m}: test BLEU 4-node dense {stat_text(r['dense_test_bleu'], 2)}, "
                        f"sparse-only {stat_text(r['sparse_test_bleu'], 2)}; max sparse-only "
                        f"{num(r['max_sparse'], 2)} vs min dense {num(r['min_dense'], 2)} -> "
                        + {True: "apart (holds)", False: "not apart",
                           None: "not judged yet"}[r["holds"]])
    out += verdict_block("Claim 1 (a)", cl["1a"], nums)
    b = cl["1b"]
    nums = []
    for m in MODELS:
        r = b["models"][m]
        if r:
            per = ", ".join(f"s{s} {num(x, 4)}" for s, x in r["per_seed_loss"].items())
            nums.append(f"{m}: relative BLEU loss (seed means) {num(r['loss'], 4)}; per seed "
                        f"pair {per or 'none yet'}; sd {num(r['per_seed_loss_sd'], 4)} "
                        f"(range {num(r['per_seed_loss_range'], 4)}, shown only)")
    if "difference" in b:
        nums.append(f"difference Transformer - RNN {num(b['difference'], 4)} vs spread "
                    f"(sd_T + sd_R) {num(b['spread'], 4)}")
    for name, x in b.get("other_readings", {}).items():
        nums.append(f"other reading of the spread, shown only: {name} {num(x['spread'], 4)}"
                    + {True: " (would hold)", False: " (would not hold)", None: ""}[x["holds"]])
    out += verdict_block("Claim 1 (b)", b, nums)

    out += ["## Claim 2", ""]
    c2, nums = cl["2"], []
    t = c2["transformer"]
    if t.get("cells"):
        parts = [f"{LABEL[k]} {num(r['mean_final_dev_ce'], 4)} ({pct(r['relative_to_dense'])}"
                 f"{yes_no(r['within'], ', within 2%', ', more than 2% above')})"
                 for k, r in t["cells"].items()]
        nums.append(f"Transformer: 4-node dense mean final dev CE "
                    f"{num(t['dense_mean_final_dev_ce'], 4)}; " + "; ".join(parts) +
                    f" -> {holds_text(t['holds'])}")
    r = c2["rnn"]
    if r.get("cells"):
        parts = []
        for k, x in r["cells"].items():
            ev = yes_no(x["every_seed"], " (fewer on every seed)", " (not fewer on every seed)")
            parts.append(f"{LABEL[k]} {steps_line(x['steps'])}{ev}")
        nums.append(f"RNN: target dev CE {num(r['target'], 4)} (1.10 x dense's mean final "
                    f"{num(r['dense_mean_final_dev_ce'], 4)}); updates to it: sparse-only "
                    f"{steps_line(r['sparse_steps'])}; " + "; ".join(parts) +
                    f" -> {holds_text(r['holds'])}")
    elif doc["models"]["rnn"]["S"]:
        nums.append("RNN: no target yet (4-node dense has no complete seed)")
    out += verdict_block("Claim 2", c2, nums)
    out += ["Each sparse+local variant against fedavg (numbers only; difference of the means, "
            "variant - fedavg):", ""]
    rows = []
    for m, a in doc["against_fedavg"].items():
        for k, x in a["cells"].items():
            rows.append([m, LABEL[k], stat_text(x["final_dev_ce"], 3),
                         stat_text(a["reference_final_dev_ce"], 3), num(x["dev_ce_difference"], 3),
                         stat_text(x["test_bleu"], 2), stat_text(a["reference_test_bleu"], 2),
                         num(x["test_bleu_difference"], 2)])
    out += (md_table(["model", "variant", "final dev CE", "fedavg", "diff", "test BLEU", "fedavg",
                      "diff"], rows) if rows else ["(no model has an S yet)"]) + [""]

    out += ["## Claim 3", ""]
    c3, nums = cl["3"], []
    for m in MODELS:
        r = c3["models"][m]
        if "best" not in r:
            continue
        best = r["cells"][r["best"]]
        why = r.get("cannot_judge", {})

        def answer(ref):
            return why[ref] if ref in why else ("yes" if r["holds"][ref] else "no")
        nums.append(f"{m}: target dev CE {num(r['target'], 4)} (x1.05); best sparse+local cell "
                    f"{LABEL[r['best']]}: over 4-node dense {best['dense4']['text']} "
                    f"(lower end >= 1.5: {answer('dense4')}), over 1 node "
                    f"(equal tokens) {best['one_node']['text']} (lower end >= 3.5: "
                    f"{answer('one_node')})")
        pa = r.get("partial_alone", {})
        if pa and r["best"] != LOCAL[0]:
            nums.append(f"{m}, shown only: sparse+partial on its own would pass over 4-node dense: "
                        f"{'yes' if pa['dense4'] else 'no'}, over 1 node: "
                        f"{'yes' if pa['one_node'] else 'no'}")
        eu = r.get("one_node_equal_updates")
        if eu:
            nums.append(f"{m}, shown only: over the 1-node control at equal updates "
                        f"{eu['text']} (lower end >= 3.5: {'yes' if eu['holds'] else 'no'})")
    alt = c3.get("other_link_terms")
    if alt and c3["verdict"] != "pending":
        parts = []
        for m in MODELS:
            r = alt["models"].get(m, {})
            if "best" in r:
                b = r["cells"][r["best"]]
                parts.append(f"{m} {LABEL[r['best']]} {b['dense4']['text']} over 4-node dense, "
                             f"{b['one_node']['text']} over 1 node")
        same = "the same" if alt["verdict"] == c3["verdict"] else "**a different verdict**"
        nums.append(f"with the other network model ({alt['link_terms']}), shown beside: "
                    f"{alt['verdict']} ({same}); " + "; ".join(parts))
    same = [doc["models"][m]["speedup_vs_target_command"] for m in MODELS]
    same = "; the same cells as " + " and ".join(f"`{x}`" for x in same if x) if any(same) else ""
    prof = c3["profile"]
    if prof is None:
        prof = CLAIM3_PROFILE + " (not loaded)"
    elif not os.path.relpath(prof).startswith(".."):
        prof = os.path.relpath(prof)
    nums.insert(0, f"setting: profile `{prof}`, "
                   f"network {c3['network']}, {c3.get('link_terms') or 'link terms as given'}; "
                   f"{doc['bootstrap']['replicates']} bootstrap replicates, resampling seed "
                   f"{doc['bootstrap']['seed']}{same}")
    out += verdict_block("Claim 3", c3, nums)
    for m in MODELS:
        r = c3["models"][m]
        if "best" not in r:
            continue
        out += [f"{m}: every sparse+local cell at x1.05, every profile and network "
                f"(over 4-node dense / over 1 node):", ""]
        rows = [[p, n, LABEL[k], x["dense4"]["text"], x["one_node"]["text"]]
                for p, nets in r["other_settings"].items() for n, cs in nets.items()
                for k, x in cs.items()]
        out += md_table(["profile", "network", "cell", "over 4-node dense", "over 1 node"], rows)
        out += ["", f"{m}: every target factor on the principal profile and network:", ""]
        rows = [[f, LABEL[k], x["dense4"]["text"], x["one_node"]["text"]]
                for f, cs in r["other_targets"].items() for k, x in cs.items()]
        out += md_table(["target", "cell", "over 4-node dense", "over 1 node"], rows) + [""]

    out += ["## Claim 4", ""]
    c4 = cl["4"]
    rows = []
    for name, r in list(c4["runs"].items()) + list(c4["context"].items()):
        rows.append([f"`{name}`", str(r["averaging_steps"]), num(r["mean_before"], 4),
                     num(r["min_before"], 4), num(r["mean_after"], 4), num(r["max_after"], 4),
                     "context" if r["cell"] == FEDAVG else ("yes" if r["holds"] else "no")])
    nums = [f"{sum(1 for r in c4['runs'].values() if r['holds'])} of {len(c4['runs'])} complete "
            "sparse+local runs drift (> 0 before every averaging) and reset (after <= 1e-6 x "
            "before)"]
    out += verdict_block("Claim 4", c4, nums)
    out += (md_table(["run", "averaging steps", "mean before", "min before", "mean after",
                      "max after", "drift and reset"], rows) if rows
            else ["(no complete sparse+local or fedavg run yet)"]) + [""]

    out += ["## The method against its descendants (numbers only)", "",
            "Difference of the means, descendant - sparse+partial:", ""]
    rows = []
    for m, a in doc["descendants"].items():
        for k, x in a["cells"].items():
            rows.append([m, LABEL[k], stat_text(x["final_dev_ce"], 3),
                         stat_text(a["reference_final_dev_ce"], 3), num(x["dev_ce_difference"], 3),
                         stat_text(x["test_bleu"], 2), stat_text(a["reference_test_bleu"], 2),
                         num(x["test_bleu_difference"], 2), num(x.get("bytes_per_step"), 0),
                         num(a.get("reference_bytes_per_step"), 0)])
    out += (md_table(["model", "method", "final dev CE", "sparse+partial", "diff", "test BLEU",
                      "sparse+partial", "diff", "bytes / update / node", "sparse+partial"], rows)
            if rows else ["(no model has an S yet)"])
    out += ["", "At equal bytes (the demo row's pick, pre-registered: each descendant's dev CE "
            "when it has sent what sparse+partial K500 sends in S updates, at update B* / its "
            "mean bytes per update; lowest mean over the Transformer's seeds wins; the RNN's row "
            "is numbers only). Beside it, not used for the pick: each seed read where its logged "
            "bytes add up to B* (a method that sends more early gets there sooner):", ""]
    rows, unread = [], []
    for m, e in doc.get("descendants_equal_bytes", {}).items():
        if e["missing"]:
            rows.append([m, "pending: " + "; ".join(e["missing"]), "", "", "", "", ""])
            continue
        unread += e.get("unread", [])
        for k, x in e["cells"].items():
            steps = ", ".join(f"{v['step']:.0f}" for v in x["seeds"].values())
            cum = ", ".join("no bytes logged" if v["step_cumulative"] is None
                            else f"{v['step_cumulative']:.0f}" for v in x["seeds"].values())
            rows.append([m, LABEL[k], num(e["bytes_reference"], 0), steps,
                         stat_text(x["dev_ce"], 3) + (" **best**" if k == e["best"] else ""),
                         cum, stat_text(x["dev_ce_cumulative"], 3) +
                         (" (lowest)" if k == e.get("best_cumulative") else "")])
    out += (md_table(["model", "method", "bytes per node (sparse+partial, S updates)",
                      "at update (per seed)", "dev CE there",
                      "cumulative bytes: at update", "dev CE there"], rows) if rows
            else ["(no model has an S yet)"])
    if unread:
        out += ["", "No value (no pick while any seed lacks one): " + "; ".join(unread)]
    return "\n".join(out) + "\n"
