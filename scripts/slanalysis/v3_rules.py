"""The pre-registered decision rules of reproduction v3 (issue 27; written down in
configs/repro-v3/README.md before the first run they govern). Plain numbers in, decisions out:
the driver (scripts/repro_v3.py) reads the runs and applies these; nothing here reads files.

Learning rate, per method and model: runs of the short sweep budget at a grid spaced x2; the
chosen lr has the lowest final dev CE (the last validation, at the end of the annealed
schedule); a run that diverged or has no final dev CE ranks last; an exact tie goes to the
smaller lr. When the chosen lr is the smallest or the largest tried, the next value beyond that
edge (x1/2 or x2) is run too, until the choice is inside the grid or the next value would leave
[LR_MIN, LR_MAX].

Budget S, per model: 4-node dense at its chosen lr is run to S and to 2S (each annealed to 0 at
its own end), S = 3000, 6000, 12000, ...; S is the first for which the two end within 2%
relative dev CE and 1.0 test BLEU of each other. When the next 2S would exceed the model's cap,
S is the largest S run and the rule is reported as not met."""
import math

LR_GRID = (0.001, 0.002, 0.004, 0.008)
LR_MIN, LR_MAX = 0.000125, 0.064
WARMUP, WARMUP_LR = 200, 0.004   # warm-up 200 updates, longer above lr 0.004 (same slope)
S_START = 3000
CE_TOL, BLEU_TOL = 0.02, 1.0


def warmup_for(lr):
    """Warm-up updates for a peak lr: 200, or 200 x lr / 0.004 above 0.004 (the same lr slope
    as at 0.004: 400 at 0.008, 800 at 0.016)."""
    return int(round(WARMUP * max(1.0, lr / WARMUP_LR)))


def lr_label(lr):
    """'0.004', '0.00025': the lr as it appears in experiment names (%g)."""
    return f"{lr:g}"


def _rank_key(item):
    lr, ce = item
    bad = ce is None or not math.isfinite(ce)
    return (bad, ce if not bad else 0.0, lr)


def choose_lr(finals, lr_min=LR_MIN, lr_max=LR_MAX):
    """finals: {lr: final dev CE, or None when the run diverged / has none}, every run of the
    sweep that finished. Returns (chosen lr, next lr to run or None). The next lr is the value
    beyond the edge the choice sits on; None when the choice is interior or the edge is a limit
    (lr_min, lr_max: the range the grid may grow to).
    An empty sweep or one where every run diverged chooses nothing: (None, None)."""
    if not finals:
        return None, None
    ranked = sorted(finals.items(), key=_rank_key)
    best, ce = ranked[0]
    if ce is None or not math.isfinite(ce):
        return None, None
    tried = sorted(finals)
    nxt = None
    if best == tried[0] and best / 2 >= lr_min * (1 - 1e-9):
        nxt = best / 2
    elif best == tried[-1] and best * 2 <= lr_max * (1 + 1e-9):
        nxt = best * 2
    return best, nxt


def choose_budget(finals, cap):
    """finals: {S: (final dev CE, test BLEU)} of the finished 4-node dense runs at the chosen
    lr (S = 3000 x 2^k). Returns (S, next S to run or None, status):
      ("met")     S and 2S are within CE_TOL and BLEU_TOL: S is the budget;
      ("running") the next run to make is returned;
      ("capped")  2S would exceed `cap` (max updates of one run): S = the largest S run whose
                  2S was run, the rule not met (None when nothing comparable ran)."""
    s = S_START
    while True:
        if s not in finals:
            return None, s, "running"
        if 2 * s > cap:
            prev = s // 2 if s // 2 in finals and s > S_START else None
            return prev, None, "capped"
        if 2 * s not in finals:
            return None, 2 * s, "running"
        if within(finals[s], finals[2 * s]):
            return s, None, "met"
        s *= 2


def within(short, long):
    """short, long: (final dev CE, test BLEU). True when |CE_long / CE_short - 1| <= CE_TOL and
    |BLEU_long - BLEU_short| <= BLEU_TOL (a missing value fails)."""
    (ce_s, bleu_s), (ce_l, bleu_l) = short, long
    if None in (ce_s, bleu_s, ce_l, bleu_l):
        return False
    return abs(ce_l / ce_s - 1) <= CE_TOL and abs(bleu_l - bleu_s) <= BLEU_TOL
