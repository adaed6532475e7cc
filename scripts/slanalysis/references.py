"""Which runs the speed-ups and gaps are measured against. Three rules, kept apart on purpose
because the committed tables were made with them:

  plain_run           claims.py v1: the run of a (nodes, method) with the shortest name, so
                      controls such as `...-dense-2xS-s1` or `...-dense-lrx2-s1` are not taken
  summary_references  plot.py's summary.md: the 1-node dense run (or --baseline) and the first
                      4-node dense run by name
  variant_references  seed variants (claims.py --v2, maps, v3): the 4-node dense variant with
                      the shortest name, the 1-node dense variant with the most steps
  plan_references     a reproduction-v3 tree (RESULTS_DIR/<model>/plan.json with the budget S):
                      the phase-3 cells 4-node dense and 1-node dense at equal tokens, the
                      pre-registered speed-ups' references; plan_cells names every cell:
                      `<model>-<cell>-S<S>` (v3), or since the v3.1 amendment the variant at
                      the cell's lr at S (plan.json lr_at_S, `<model>-<cell>-lr<lr>-S<S>`
                      where that lr is not phase 1's)"""
import os
import re

from .logfiles import read_json

DENSE = "dense"  # the baseline method's label in every log (lib/distributed)


def plain_run(group, nodes, method):
    runs = [e for e in group if e.nodes == nodes and e.method == method]
    return min(runs, key=lambda e: (len(e.name), e.name)) if runs else None


def summary_references(group, baseline):
    """(1-node reference, 4-node dense reference) of one model type."""
    by_name = sorted(group, key=lambda e: e.name)
    if baseline is not None:
        one = next((e for e in by_name if baseline in (e.name, os.path.basename(e.name))), None)
    else:
        ones = [e for e in by_name if e.nodes == 1]
        one = next((e for e in ones if e.method == DENSE), ones[0] if ones else None)
    dense4 = next((e for e in by_name if e.nodes == 4 and e.method == DENSE), None)
    return one, dense4


def variant_references(variants, ref4=None, ref1=None):
    """(4-node dense variant, 1-node dense variant); ref4 / ref1 name them explicitly."""
    def pick(name, cands, key):
        if name:
            return next((v for v in cands if v.name == name), None)
        return min(cands, key=key) if cands else None
    d4 = pick(ref4, [v for v in variants if v.nodes == 4 and v.method == DENSE],
              lambda v: (len(v.name), v.name))
    d1 = pick(ref1, [v for v in variants if v.nodes == 1 and v.method == DENSE],
              lambda v: (-v.steps, v.name))
    return d4, d1


def read_plan(results_dir, model):
    """RESULTS_DIR/<model>/plan.json (scripts/repro_v3.py) as a dict, None without one."""
    return read_json(os.path.join(results_dir, model, "plan.json"), lambda _: None)


def plan_budget(plan):
    """The budget S a plan (read_plan) has decided, None while it has not."""
    S = ((plan or {}).get("budget") or {}).get("S")
    return S if isinstance(S, int) and not isinstance(S, bool) and S > 0 else None


def plan_cells(plan, model, cells):
    """({cell: variant name}, [cells whose lr at S is not chosen yet]) of a v3 plan with a
    budget S. A cell phase 1b (v3.1) has tuned is named by plan.json (lr_at_S.<cell>.cell);
    one it has not, or a plan from before v3.1, by the v3 name `<model>-<cell>-S<S>`."""
    S = plan_budget(plan)
    at_s = plan.get("lr_at_S")
    names, open_ = {}, []
    for c in cells:
        tuned = (at_s or {}).get(c) or {}
        names[c] = tuned.get("cell") or f"{model}-{c}-S{S}"
        if at_s is not None and not tuned.get("cell"):
            open_.append(c)
    return names, open_


def plan_references(results_dir, model):
    """(S, 4-node dense variant name, 1-node variant name, cells, open cells) of a v3 tree;
    (None, None, None, None, []) when the model has no budget S yet. cells: None for a v3 plan;
    with the v3.1 amendment (plan.json lr_at_S) {cell: name} of the cells tuned at S so far, and
    a reference whose lr at S is not chosen yet is None (no run at a phase-1 lr stands in for
    it); open cells: plan.json's cells whose lr at S is not chosen yet, sorted."""
    plan = read_plan(results_dir, model)
    S = plan_budget(plan)
    if S is None:
        return None, None, None, None, []
    dense4, tokens = "4node-dense", "1node-dense-equal-tokens"
    if "lr_at_S" not in plan:
        return S, f"{model}-{dense4}-S{S}", f"{model}-{tokens}-S{S}", None, []
    names, open_ = plan_cells(plan, model, plan["lr_at_S"].keys() | {dense4, tokens})
    tuned = {c: n for c, n in names.items() if c not in open_}
    return S, tuned.get(dense4), tuned.get(tokens), tuned, sorted(c for c in open_ if c in plan["lr_at_S"])


class PlanDefaults:
    """What a v3 tree's plan.json implies for a command over one model's variants (speedup-vs-
    target, speedup-map): the references (plan_references, unless given on the command line),
    the rows (the phase-3 cells; v3: the variants at S), a sentence saying so, and why there
    can be no reference at all (v3.1: 4-node dense's lr at S not chosen yet). Outside a v3 tree
    (no plan.json budget) everything is left to the caller: ref4 / ref1 as given, shows None."""

    def __init__(self, results_dir, model, variants, ref4=None, ref1=None, only=None):
        S, plan4, plan1, cells, open_ = plan_references(results_dir, model)
        names = {v.name for v in variants}
        self.S, self.skip, self.preface = S, None, []
        untuned = cells is not None and not ref1 and plan1 is None
        # the 1-node control still being tuned, or its cell without a run yet: no 1-node
        # reference (never a stand-in of another lr or length)
        self.no_ref1 = untuned or (S is not None and not ref1 and plan1 not in names)
        if cells is not None and not ref4 and plan4 is None:
            self.skip = ("4-node dense's lr at S is not chosen yet (v3.1 phase 1b): no reference, "
                         "no targets; `--ref4 NAME` picks one")
        elif S is not None and not ref4 and plan4 not in names:
            self.skip = (f"plan.json's 4-node dense cell `{plan4}` has no run with validations "
                         "here yet: no reference, no targets; `--ref4 NAME` picks one")
        self.ref4 = ref4 or (plan4 if plan4 in names else None)
        self.ref1 = ref1 or (plan1 if plan1 in names else None)
        self.shows = only
        if only is None and S is not None:
            self.shows = (re.compile("^(?:" + "|".join(map(re.escape, sorted(cells.values()))) + ")$")
                          if cells is not None else re.compile(rf"-S{S}$"))
        if S is None:
            return
        picked = [f"`{r}`" for r, given in ((self.ref4, ref4), (self.ref1, ref1)) if r and not given]
        what = ("; references from it: " + " and ".join(picked)) if picked else ""
        if untuned:
            what += "; no 1-node reference yet (its lr at S is not chosen: v3.1 phase 1b)"
        if open_ and only is None:
            what += ("; no rows yet for " + ", ".join(f"`{c}`" for c in open_) +
                     " (lr at S not chosen yet: v3.1 phase 1b)")
        rows = "" if only else (
            "; rows and lines: the cells at their lr at S (v3.1 amendment; `--only .` for every "
            "run)" if cells is not None else
            f"; rows and lines: the variants at S (`--only -S{S}$`; `--only .` for every run)")
        self.preface = [f"{model}/plan.json: budget S = {S}{what}{rows}.", ""]

    def shown(self, variants, *refs):
        """The variants that get rows (the references always)."""
        return [v for v in variants if self.shows is None or self.shows.search(v.name)
                or any(v is r for r in refs)]
