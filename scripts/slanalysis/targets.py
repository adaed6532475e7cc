"""Quality targets and when a run reaches them.

A target is a dev metric and a value: dev BLEU ("bleu") is reached at or above it, dev
cross-entropy ("dev_ce") at or below. A series is one seed's validations, [(step, value)]."""
import statistics

from .formatting import fmt
from .logfiles import number


def reaches(key, x, target):
    return x >= target if key == "bleu" else x <= target


def first_row(rows, key, target):
    """The first validation row whose key reaches target; None = not reached (or no target)."""
    if target is None:
        return None
    for v in rows:
        x = number(v.get(key))
        if x is not None and reaches(key, x, target):
            return v
    return None


def first_hit(series, key, target):
    """The first validated step that reaches target; None = not reached."""
    for step, x in series:
        if reaches(key, x, target):
            return step
    return None


def crossing_step(series, key, target):
    """The step at which the metric reaches target, interpolated linearly between the last
    validation short of it and the first one at or past it; the first validation's step when
    that one already reaches it (nothing earlier to interpolate from: an upper bound); None =
    not reached."""
    prev = None
    for step, x in series:
        if reaches(key, x, target):
            if prev is None:
                return float(step)
            s0, x0 = prev
            return s0 + (step - s0) * (x0 - target) / (x0 - x)
        prev = (step, x)
    return None


def best_of(series, key):
    """(best value, its first step) of one seed's validations."""
    if not series:
        return None, None
    pick = max if key == "bleu" else min
    v = pick(x for _, x in series)
    return v, next(s for s, x in series if x == v)


def final_value(series):
    """The last validation's value of one seed, or None."""
    return series[-1][1] if series else None


def final_at_end(series, steps):
    """A run's final value as v3 reads it: its last validation's, when that validation is at
    the run's last update `steps`; None otherwise (a complete run validated earlier has none)."""
    return final_value(series) if series and series[-1][0] == steps else None


def plateau(variant, key, fraction=0.2):
    """Mean over seeds of the mean metric over validations in the last `fraction` of the run,
    and the relative change over that window (last minus first, over first; mean over seeds)."""
    means, changes = [], []
    for series in variant.values(key):
        if not series:
            continue
        last = series[-1][0]
        window = [(s, x) for s, x in series if s >= (1 - fraction) * last]
        if len(window) < 1:
            continue
        means.append(sum(x for _, x in window) / len(window))
        if len(window) >= 2 and window[0][1]:
            changes.append((window[-1][1] - window[0][1]) / abs(window[0][1]))
    if not means:
        return None, None
    return sum(means) / len(means), (sum(changes) / len(changes) if changes else None)


FINAL_CE_FACTOR, FINAL_BLEU_FACTOR = 1.05, 0.95   # reproduction v3's principal target


def target_for(d4, key, rule, explicit=None, ce_margin=0.02, bleu_fraction=0.95):
    """(target value, how) from the 4-node dense variant d4. rule 'v1' = REPORT v1's:
    CE <= 1.10 x 4-node dense's last dev CE, BLEU >= 0.9 x its best; 'plateau' = CE <=
    (1 + ce_margin) x its plateau, BLEU >= bleu_fraction x its plateau (means over seeds);
    'final' = reproduction v3's principal target (configs/repro-v3/README.md): CE <= 1.05 x
    the mean over seeds of its final dev CE, BLEU >= 0.95 x the mean of its final dev BLEU."""
    if explicit is not None:
        return explicit, "given"
    if d4 is None:
        return None, "no 4-node dense run"
    if rule == "final":
        finals = [final_value(s) for s in d4.values(key)]
        finals = [x for x in finals if x is not None]
        if not finals:
            return None, "no validations"
        f = FINAL_BLEU_FACTOR if key == "bleu" else FINAL_CE_FACTOR
        what = "dev BLEU" if key == "bleu" else "dev CE"
        m = statistics.mean(finals)
        return f * m, f"x{f:.2f} of 4-node dense's final {what} {m:.4f} (mean over its seeds)"
    if rule == "v1":
        if key == "bleu":
            bests = [best_of(s, "bleu")[0] for s in d4.values("bleu")]
            bests = [b for b in bests if b is not None]
            return (0.9 * statistics.mean(bests), "90% of 4-node dense's best dev BLEU") if bests else (None, "no BLEU")
        lasts = [s[-1][1] for s in d4.values("dev_ce") if s]
        return (1.1 * statistics.mean(lasts), "110% of 4-node dense's last dev CE") if lasts else (None, "no dev CE")
    p, _ = plateau(d4, key)
    if p is None:
        return None, "no validations"
    if key == "bleu":
        return bleu_fraction * p, f"{100 * bleu_fraction:.0f}% of 4-node dense's plateau dev BLEU {p:.2f}"
    return (1 + ce_margin) * p, f"{100 * (1 + ce_margin):.0f}% of 4-node dense's plateau dev CE {p:.3f}"


class Target:
    """A quality level with how it was chosen, for tables of single runs (claims.py v1)."""

    def __init__(self, key, value, how):
        self.key, self.value, self.how = key, value, how

    def label(self):
        sign = ">=" if self.key == "bleu" else "<="
        name = "dev BLEU" if self.key == "bleu" else "dev CE"
        return f"{name} {sign} {fmt(self.value, 2 if self.key == 'bleu' else 3)} ({self.how})"

    def first(self, e):
        """The first validation row of experiment e that reaches the target, or None."""
        return first_row(e.valid, self.key, self.value)
