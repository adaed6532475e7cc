"""Which runs the speed-ups and gaps are measured against. Three rules, kept apart on purpose
because the committed tables were made with them:

  plain_run           claims.py v1: the run of a (nodes, method) with the shortest name, so
                      controls such as `...-dense-2xS-s1` or `...-dense-lrx2-s1` are not taken
  summary_references  plot.py's summary.md: the 1-node dense run (or --baseline) and the first
                      4-node dense run by name
  variant_references  seed variants (claims.py --v2, maps, v3): the 4-node dense variant with
                      the shortest name, the 1-node dense variant with the most steps
  plan_references     a reproduction-v3 tree (RESULTS_DIR/<model>/plan.json with the budget S):
                      <model>-4node-dense-S<S> and <model>-1node-dense-equal-tokens-S<S>, the
                      phase-3 cells the pre-registered speed-ups are measured against"""
import os

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


def plan_references(results_dir, model):
    """(S, 4-node dense variant name, 1-node variant name) of a v3 tree; (None, None, None)
    when the model has no budget S yet."""
    S = plan_budget(read_plan(results_dir, model))
    if S is None:
        return None, None, None
    return S, f"{model}-4node-dense-S{S}", f"{model}-1node-dense-equal-tokens-S{S}"
