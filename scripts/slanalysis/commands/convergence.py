"""Is the budget S enough? Prints, per model, the 4-node dense reference at S against its 2S
control (`<name>-2xS`): final dev CE within --ce-tol (2%) and test BLEU within --bleu-tol (1.0)
(issue 27's rule; means over seeds). On v3's results (budget runs `<model>-4node-dense-S<N>`,
scripts/repro_v3.py phase 2) every S vs 2S pair is printed, and which S first meets the rule;
the v3.1 re-check at dense's lr at S (`<model>-4node-dense-lr<lr>-S<N>`) is printed as its own
ladder.

Usage: analyze.py convergence RESULTS_DIR [--model M] [--short NAME] [--long NAME]
                  [--ce-tol 0.02] [--bleu-tol 1.0]
Exit status: 0 every model checked is within both limits (v3: some pair of each model is, in
phase 2's ladder or in the v3.1 re-check at dense's lr at S),
1 one is not (or cannot be told),
2 bad arguments or no 4-node dense variant.
"""

from ..convergence import BudgetCheck, budget_ladder, find_long_run, ladder_lr
from ..experiment import load_experiments
from ..notes import Notes
from ..references import plan_budget, read_plan, variant_references
from ..variants import group_variants
from .common import Parser, NON_NEGATIVE, UsageError, guarded, results_dir_or_fail

PROGRAM = "convergence"


def parse_args(argv, prog):
    p = Parser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--model", help="only this model type (e.g. transformer)")
    p.add_argument("--short", help="variant run to S (default: the 4-node dense reference)")
    p.add_argument("--long", help="variant run to 2S (default: <short>-2xS)")
    p.add_argument("--ce-tol", type=NON_NEGATIVE, default=0.02, help="relative dev CE limit (0.02)")
    p.add_argument("--bleu-tol", type=NON_NEGATIVE, default=1.0, help="test BLEU limit (1.0)")
    return p.parse_args(argv)


def recheck_pending(results_dir, model, ladder):
    """The line for a v3.1 re-check that plan.json asks for and the ladder lacks (its 2S run not
    finished, or never to be run), else ''."""
    plan = read_plan(results_dir, model) or {}
    S = plan_budget(plan)
    lr = (((plan.get("lr_at_S") or {}).get("4node-dense") or {}).get("chosen_lr"))
    if S is None or lr is None or any(ladder_lr(s) and float(ladder_lr(s)) == lr for s, _ in ladder):
        return ""
    status = (plan.get("budget_at_lr_at_S") or {}).get("status", "")
    if status not in ("", "running") and not status.startswith("not run"):
        return ""   # decided, under a name the ladder shows (dense's lr at S = its phase-1 lr)
    why = status if status.startswith("not run") else "pending: its 2S run has not finished"
    return f"{model} at lr {lr:g} (v3.1 re-check): S = {S} vs 2S = {2 * S}: {why}"


def main(argv, prog=PROGRAM):
    return guarded(prog, run, parse_args(argv, prog), prog)


def run(args, prog):
    results_dir_or_fail(args.results_dir)
    exps = [e for e in load_experiments(args.results_dir, Notes(prog))
            if e.valid and (args.model is None or e.model == args.model)]
    checks, ok = [], []
    for model, variants in group_variants(exps).items():
        ladder = [] if args.short or args.long else budget_ladder(variants)
        if ladder:  # v3: every S vs 2S pair; the rule's S is the first pair that agrees
            met = False
            for lr in dict.fromkeys(ladder_lr(s) for s, _ in ladder):
                pairs = [BudgetCheck(s, l, args.ce_tol, args.bleu_tol) for s, l in ladder
                         if ladder_lr(s) == lr]
                for c in pairs:
                    print("\n".join(c.lines(model)))
                first = next((c for c in pairs if c.status == "converged"), None)
                if lr is None:   # phase 2's ladder, from S = 3000 up
                    print(f"{model}: " + (f"S = {first.short.steps} is the first that meets the "
                                          "rule" if first else
                                          "no S vs 2S pair meets the rule (yet)"))
                else:            # v3.1's re-check at dense's lr at S (smaller S not run there)
                    print(f"{model} at lr {lr} (v3.1 re-check): " +
                          ", ".join(f"S = {c.short.steps} " +
                                    {"converged": "meets the rule",
                                     "not converged": "does not meet the rule"}.get(
                                        c.status, f"cannot tell yet ({c.why})") for c in pairs))
                checks += pairs
                met = met or first is not None
            pending = recheck_pending(args.results_dir, model, ladder)
            if pending:
                print(pending)
            ok.append(met)
            continue
        short, _ = variant_references(variants, args.short)
        if short is None:
            continue
        checks.append(BudgetCheck(short, find_long_run(short, variants, args.long),
                                  args.ce_tol, args.bleu_tol, args.long))
        print("\n".join(checks[-1].lines(model)))
        ok.append(checks[-1].status == "converged")
    if not checks:
        raise UsageError(f"no 4-node dense variant{' ' + repr(args.short) if args.short else ''}"
                         f" with validations under {args.results_dir}")
    return 0 if all(ok) else 1
