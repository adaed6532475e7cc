"""Where the reproduction-v3 suite stands: per model, the lr sweep's final dev CE by method and
lr with the chosen lr, the budget runs and the budget decision, phase 1b's re-tuning at S
(v3.1) and the budget rule re-checked at dense's lr at S, how many of the suite's runs have
finished, and a rough estimate of the hours still needed. Reads what
scripts/repro_v3.py writes (results/repro-v3/<model>/plan.json,
configs/repro-v3/<model>.json) and each run's summary.json; decides nothing itself (the rules
are slanalysis/v3_rules.py, applied by the driver). The driver writes plan.json only between
its rounds, so by default each model's decisions are recomputed here, in memory, by the
driver's own code (scripts/repro_v3.py's decide) from the runs as they are now; nothing is
written but --out.

Usage: analyze.py v3-status [RESULTS_DIR] [--suites DIR] [--out FILE] [--no-refresh]
                            [--figure DIR]
  --figure DIR  also draw there <model>-lr-at-S.png (per cell, final dev CE against the lr at
                1500 updates and at S) and <model>-budget.png (4-node dense's dev CE and BLEU
                against updates for every budget run) (needs matplotlib: /usr/bin/python3)
  defaults: results/repro-v3, configs/repro-v3
Exit status 0; 2 when no model has a plan.json."""
import importlib.util
import os
import re
import statistics

from .. import budget_figure, lr_figure
from ..formatting import md_table
from ..logfiles import read_json, read_jsonl
from ..v3_rules import lr_label
from ..variants import summary_finished
from .common import Parser, UsageError, fail, guarded, pyplot, write_atomic

PROGRAM = "v3-status"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR", nargs="?", default=os.path.join(REPO, "results", "repro-v3"),
                   help="the v3 tree (default results/repro-v3)")
    p.add_argument("--suites", default=os.path.join(REPO, "configs", "repro-v3"),
                   help="folder of the suite files the driver writes (<model>.json)")
    p.add_argument("--out", help="also write the markdown here")
    p.add_argument("--figure", metavar="DIR", help="draw <model>-lr-at-S.png in DIR (final dev "
                   "CE against the lr at 1500 updates and at S, per cell; needs matplotlib)")
    p.add_argument("--no-refresh", action="store_true",
                   help="read plan.json as the driver last wrote it (do not recompute)")
    return p.parse_args(argv)


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), argv, prog)


def quiet(_):
    pass


def lr_lines(lr_table):
    lrs = sorted({float(k) for m in lr_table.values() for k in m.get("final_dev_ce", {})})
    rows = []
    for method, m in lr_table.items():
        ces = m.get("final_dev_ce", {})
        chosen = m.get("chosen_lr")
        cells = []
        for lr in lrs:
            ce = ces.get(lr_label(lr))
            if lr_label(lr) not in ces:
                cells.append("")
            elif ce is None:
                cells.append("diverged")
            else:
                cells.append(f"**{ce:.3f}**" if chosen is not None and abs(chosen - lr) < 1e-12
                             else f"{ce:.3f}")
        if chosen is not None:
            state = lr_label(chosen)
        elif m.get("to_run"):
            state = "to run: " + ", ".join(m["to_run"])
        else:
            state = ("grid not finished" if not ces or m.get("running") else
                     "every lr diverged" if ces and all(v is None for v in ces.values()) else
                     "extending past the edge")
        tried = [float(k) for k in ces]
        if chosen is not None and len(tried) > 1 and (chosen >= max(tried) - 1e-12 or
                                                      chosen <= min(tried) + 1e-12):
            # the driver extends an edge choice until the range's limit: this one sits on it
            state += " (at the edge of its allowed range: not bracketed)"
        rows.append([method] + cells + [state])
    return md_table(["method"] + [lr_label(x) for x in lrs] + ["chosen lr"], rows)


def budget_lines(budget):
    if not budget:
        return ["(not started: the lr sweep decides 4-node dense's lr first)"]
    rows = [[s, f"{r['final_dev_ce']:.4f}" if r.get("final_dev_ce") is not None else "-",
             f"{r['test_bleu']:.2f}" if r.get("test_bleu") is not None else "-"]
            for s, r in sorted(budget.get("runs", {}).items(), key=lambda kv: int(kv[0]))]
    out = md_table(["updates (4-node dense, seed 1)", "final dev CE", "test BLEU"], rows) if rows \
        else ["(no budget run finished yet)"]
    return out + ["", f"Budget decision: S = {budget.get('S')} ({budget.get('status')}; cap "
                      f"{budget.get('cap')} updates per run)."]


def load_driver(results_dir, suites):
    """scripts/repro_v3.py as a module, pointed at these folders."""
    path = os.path.join(REPO, "scripts", "repro_v3.py")
    spec = importlib.util.spec_from_file_location("repro_v3_driver", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.RESULTS, mod.CONFIG_DIR = os.path.abspath(results_dir), os.path.abspath(suites)
    return mod


def progress(results_dir, model, names):
    done = running = 0
    for n in names:
        s = read_json(os.path.join(results_dir, model, n, "summary.json"), quiet)
        if summary_finished(s):
            done += 1
        elif s or os.path.isdir(os.path.join(results_dir, model, n)):
            running += 1
    return len(names), done, running


def wall_per_update(results_dir, model, plan):
    """Median wall seconds per update of the finished 4-node budget runs (they validate as
    phase 3 does; measured while the other model's suite shared the machine), or None."""
    rates = []
    for _, run, _, again in budget_figure.budget_runs(plan, model):
        if again:   # phase 2's runs only, as before the re-check existed
            continue
        rows = read_jsonl(os.path.join(results_dir, model, run, "log.jsonl"))
        if rows and rows[-1].get("wall_s") and rows[-1].get("step"):
            rates.append(rows[-1]["wall_s"] / rows[-1]["step"])
    return statistics.median(rates) if rates else None


def cell_pace(results_dir, model, name):
    """Median wall seconds per update of the finished seeds of run `name`'s cell (the same
    name but its -s<seed> suffix), or None: a remaining run of a cell with a finished seed is
    estimated at that cell's own pace (its method's exchange, its node count and its
    validations included), which the budget runs' pace does not know."""
    stem = re.sub(r"-s\d+$", "", name)
    folder = os.path.join(results_dir, model)
    rates = []
    for d in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not re.fullmatch(re.escape(stem) + r"-s\d+", d):
            continue
        s = read_json(os.path.join(folder, d, "summary.json"), quiet)
        if summary_finished(s) and s.get("wall_s") and s.get("steps"):
            rates.append(s["wall_s"] / s["steps"])
    return statistics.median(rates) if rates else None


def updates_done(results_dir, model, name):
    rows = read_jsonl(os.path.join(results_dir, model, name, "log.jsonl"))
    return rows[-1].get("step", 0) if rows else 0


def remaining_lines(driver, suite, results_dir, model):
    """What is left to run at S (the budget decision, or while the last budget run is running,
    the S it tests), in hours of one core: a run whose cell has a finished seed at its cell's
    pace (cell_pace), else at the budget runs' measured pace, a run of U updates on n nodes ~
    U x n / 4 x (4-node seconds per update). Phase 1b's runs decided so far, the
    budget re-check, seeds 2-3 of every cell and phase 4 (a cell still being tuned counted at
    half its phase-1 lr; the run lengths do not depend on it); further phase-1b grid points its
    edge rule may still ask for are not counted. Rough (the 1-node controls validate as often
    as a 4-node run, so they take somewhat longer than this)."""
    plan = suite.plan
    budget = plan.get("budget") or {}
    S, note = budget.get("S"), ""
    if S is None:
        runs = sorted(int(k) for k in budget.get("runs", {}))
        if budget.get("status") != "running" or not runs:
            return []
        S, note = runs[-1], f" if S = {runs[-1]} (the S its running 2S run tests)"
    rate = wall_per_update(results_dir, model, plan)
    if rate is None:
        return []
    lrs, _ = driver.phase_lr(suite)
    lrS, todo = driver.phase_lr_at_S(suite, lrs, S)
    # a cell still being tuned is counted at half its phase-1 lr: only whether a run of that
    # name exists matters here (at the phase-1 lr seed 1 and the 2S run of 4-node dense may)
    assumed = {c: lrS.get(c, lrs[m] / 2) for c, (m, _) in driver.CELLS.items()}
    todo += driver.phase_budget_at_lr(suite, lrs, assumed, S)
    todo += driver.phase_main(suite, lrs, assumed, S) + driver.phase_scaling(suite, lrs, assumed, S)
    todo = list({e["name"]: e for e in todo}.values())
    hours, own = 0.0, 0
    for e in todo:
        steps = int(next(x for x in e["set"] if x.startswith("train.max_steps=")).split("=")[1])
        left = max(0, steps - updates_done(results_dir, model, e["name"]))
        pace = cell_pace(results_dir, model, e["name"])
        own += pace is not None
        hours += left * (e["nodes"] / 4 * rate if pace is None else pace) / 3600
    shown = f"{hours:.1f}" if hours < 10 else f"{hours:.0f}"
    return [f"Still to run{note}: {len(todo)} runs (phase 1b as decided so far, the budget "
            f"re-check, phases 3-4), ~{shown} h on one core: {own} at the pace of their cell's "
            f"finished seeds, the others at the budget runs' {rate:.3f} s per 4-node update "
            "(validation included; rough).", ""]


def retune_lines(plan):
    """Phase 1b (v3.1): the lr re-tuned at S per cell, and the budget rule at dense's lr."""
    at_s = plan.get("lr_at_S")
    if not at_s:
        return []
    out = ["Learning rate re-tuned at S (phase 1b, v3.1 amendment; seed 1, each cell at its own "
           "length): final dev CE; bold = chosen by phase 1's rule:", ""]
    out += lr_lines(at_s) + [""]
    b = plan.get("budget_at_lr_at_S")
    if b:
        runs = "; ".join(f"{n} updates: {r['final_dev_ce']:.4f} dev CE, {r['test_bleu']:.2f} BLEU"
                         for n, r in sorted(b.get("runs", {}).items(), key=lambda kv: int(kv[0]))
                         if r.get("final_dev_ce") is not None and r.get("test_bleu") is not None)
        out += [f"Budget rule re-checked at 4-node dense's lr at S ({lr_label(b['lr'])}, S = "
                f"{b['S']} against 2S): {b['status']}" + (f" ({runs})" if runs else "") + ".", ""]
    return out


def run(args, argv, prog):
    models = sorted(d for d in os.listdir(args.results_dir)
                    if os.path.isfile(os.path.join(args.results_dir, d, "plan.json"))) \
        if os.path.isdir(args.results_dir) else []
    if not models:
        raise UsageError(f"{args.results_dir}: no <model>/plan.json (scripts/repro_v3.py writes "
                         "them)")
    if not os.path.isdir(args.suites):
        raise UsageError(f"--suites {args.suites}: not a folder (the driver's suite records, "
                         f"configs/repro-v3)")
    driver = None if args.no_refresh else load_driver(args.results_dir, args.suites)
    plt = None
    if args.figure:
        try:
            plt = pyplot()
        except ImportError as e:
            return fail(prog, f"{e}; use a python3 with matplotlib (/usr/bin/python3)", 1)
        os.makedirs(args.figure, exist_ok=True)
    out = ["# Reproduction v3: where the suite stands", "",
           "Produced by `python3 scripts/analyze.py v3-status` from the driver's plan.json files "
           "(rules: configs/repro-v3/README.md).", ""]
    for model in models:
        if driver is not None:
            suite = driver.Suite(model)
            try:
                driver.decide(suite, "scaling")  # in memory: Suite.write() is never called
            except driver.Conflict as e:   # a run that disagrees with its settings: say which
                raise UsageError(str(e))
            plan = suite.plan
            names = [e["name"] for e in suite.record()]
        else:
            plan = read_json(os.path.join(args.results_dir, model, "plan.json"), quiet) or {}
            names = [e["name"] for e in (read_json(os.path.join(args.suites, f"{model}.json"),
                                                   quiet) or {}).get("experiments", [])]
        total, done, started = progress(args.results_dir, model, names)
        out += [f"## {model}", "",
                f"Runs in the suite so far: {total}; finished {done}, started and unfinished "
                f"{started} (the driver adds the next phase's runs as each decision is made).", "",
                "Learning-rate sweep (1500 updates, seed 1): final dev CE; bold = chosen (lowest; "
                "an edge choice extends the grid first):", ""]
        out += lr_lines(plan.get("lr", {})) + [""]
        out += ["Budget:", ""] + budget_lines(plan.get("budget")) + [""]
        out += retune_lines(plan)
        if plt is not None:
            for name in (lr_figure.draw(plt, model, plan, args.figure, list(plan.get("lr_at_S") or {})),
                         budget_figure.draw(plt, model, plan, args.results_dir, args.figure)):
                out += [f"Figure: [{name}]({name}) (in {args.figure})", ""] if name else []
        if driver is not None:
            out += remaining_lines(driver, suite, args.results_dir, model)
    text = "\n".join(out)
    print(text)
    if args.out:
        write_atomic(args.out, text + "\n")
    return 0
