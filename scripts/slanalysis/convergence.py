"""Is the budget S enough? The 4-node dense variant run to S against the same run to 2S (its
`<name>-2xS` control, or v3's budget ladder `...-4node-dense-S<N>`, each annealed to 0 at its
own end).

issue 27's rule: the two end within `ce_tol` (2%) relative dev CE and `bleu_tol` (1.0) test BLEU
of each other (final dev CE = the last validation; both as means over seeds)."""
import re
import statistics

from .targets import final_value


def find_long_run(short, variants, name=None):
    """The 2S control of variant `short`: the variant called `name`, else `<short>-2xS`."""
    want = name or short.name + "-2xS"
    return next((v for v in variants if v.name == want), None)


LADDER_RE = re.compile(r"^(?P<stem>.*4node-dense(?:-lr(?P<lr>[0-9.e-]+))?)-S(?P<S>[0-9]+)$")


def budget_ladder(variants):
    """The v3 budget runs as (short, long) pairs with long = 2 x short's S: phase 2's
    `<model>-4node-dense-S<N>` (one per doubling), and the v3.1 budget re-check at dense's lr
    at S, `<model>-4node-dense-lr<lr>-S<N>` (a ladder per lr, never mixed with another lr).
    In order of lr (phase 2's first), then S."""
    by_stem = {}
    for v in variants:
        m = LADDER_RE.match(v.name)
        if m:
            by_stem.setdefault((m.group("lr") is not None, m.group("stem")), {})[int(m.group("S"))] = v
    return [(by_s[S], by_s[2 * S]) for _, by_s in sorted(by_stem.items())
            for S in sorted(by_s) if 2 * S in by_s]


def ladder_lr(variant):
    """The lr in a v3.1 re-check ladder's name (`...-4node-dense-lr0.004-S24000`), else None."""
    m = LADDER_RE.match(variant.name)
    return m.group("lr") if m else None


def final_ce(variant):
    """Mean over seeds of the last dev CE, or None."""
    lasts = [final_value(s) for s in variant.values("dev_ce")]
    lasts = [x for x in lasts if x is not None]
    return statistics.mean(lasts) if lasts else None


def test_bleu(variant):
    """Mean over seeds of test BLEU, or None when no seed has one."""
    xs = [r.test_bleu for r in variant.runs if r.test_bleu is not None]
    return statistics.mean(xs) if xs else None


class BudgetCheck:
    """The comparison of `short` (S updates) with `long` (2S). `status` is "converged",
    "not converged" or "cannot tell" (with `why`)."""

    def __init__(self, short, long, ce_tol=0.02, bleu_tol=1.0, long_name=None):
        """long: the 2S variant, None when there is none (long_name: the name looked for)."""
        self.short, self.long, self.ce_tol, self.bleu_tol = short, long, ce_tol, bleu_tol
        self.ce_s = self.ce_l = self.bleu_s = self.bleu_l = self.ce_rel = self.bleu_diff = None
        self.why = ""
        if long is None:
            self.status, self.why = "cannot tell", f"no `{long_name or short.name + '-2xS'}` run"
            return
        self.ce_s, self.ce_l = final_ce(short), final_ce(long)
        self.bleu_s, self.bleu_l = test_bleu(short), test_bleu(long)
        unfinished = [v for v in (short, long) if any(r.status != "complete" for r in v.runs)]
        if unfinished or long.steps != 2 * short.steps:
            self.status = "cannot tell"
            self.why = ("not finished: " + ", ".join(f"`{v.name}`" for v in unfinished)
                        if unfinished else
                        f"`{long.name}` has {long.steps} updates, not 2 x {short.steps}")
            return
        if None in (self.ce_s, self.ce_l, self.bleu_s, self.bleu_l):
            self.status, self.why = "cannot tell", "a final dev CE or a test BLEU is missing"
            return
        self.ce_rel = (self.ce_l - self.ce_s) / self.ce_s
        self.bleu_diff = self.bleu_l - self.bleu_s
        self.ce_ok = abs(self.ce_rel) <= ce_tol
        self.bleu_ok = abs(self.bleu_diff) <= bleu_tol
        self.status = "converged" if self.ce_ok and self.bleu_ok else "not converged"

    def lines(self, model):
        s, l = self.short, self.long
        running = self.why.startswith("not finished")  # l.steps: its updates so far
        head = (f"{model}: 4-node dense at S = {s.steps} (`{s.name}`, {len(s.runs)} seed(s)) vs 2S"
                + (f" = {2 * s.steps if running else l.steps} (`{l.name}`, {len(l.runs)} seed(s)"
                   + (f", running: {l.steps} updates so far" if running else "") + ")" if l else ""))
        if self.status == "cannot tell":
            return [head, f"  cannot tell: {self.why}"]
        ok = {True: "within", False: "NOT within"}
        return [head,
                f"  final dev CE {self.ce_s:.4f} -> {self.ce_l:.4f} ({100 * self.ce_rel:+.2f}%; "
                f"limit {100 * self.ce_tol:g}%): {ok[self.ce_ok]}",
                f"  test BLEU    {self.bleu_s:.2f} -> {self.bleu_l:.2f} ({self.bleu_diff:+.2f}; "
                f"limit {self.bleu_tol:g}): {ok[self.bleu_ok]}",
                f"  -> {self.conclusion()}"]

    def conclusion(self):
        if self.status == "converged":
            return "S is enough (converged)"
        if self.ce_rel > 0 and self.bleu_diff < 0:  # the longer run ends worse in both
            return ("outside the limits, and 2S ends WORSE than S (more updates hurt here: overfitting, "
                    "or a schedule that does not suit the longer run; compare their training losses)")
        return "S is NOT enough"
