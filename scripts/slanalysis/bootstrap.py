"""Percentile bootstrap over seeds, deterministic: the resampling draws come from
random.Random(seed), whose integer draws (randrange) are the same on every Python 3 release
since 3.2, so a table made twice from the same logs is the same table."""
import math
import random


def percentile(values, q):
    """The q-quantile (0 <= q <= 1) of values by linear interpolation between order statistics
    (numpy's default): position q (n - 1) in the sorted values. inf is allowed."""
    xs = sorted(values)
    if not xs:
        return None
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    frac = pos - lo
    if frac == 0 or xs[lo] == xs[hi]:
        return xs[lo]
    return xs[lo] + frac * (xs[hi] - xs[lo])


def draws(sizes, reps, seed):
    """reps replicates of resampling indices: for each replicate, for each group of size n, n
    indices drawn uniformly with replacement from 0..n-1 (groups in the given order)."""
    rng = random.Random(seed)
    return [[[rng.randrange(n) for _ in range(n)] for n in sizes] for _ in range(reps)]


def named_draws(groups, reps, seed):
    """draws() with one stream per named group: [(name, n), ...] -> reps replicates of
    resampling indices (groups in the given order), group `name`'s indices from
    random.Random(f"{seed}:{name}") (a str seed is hashed with SHA-512: the same on every
    Python 3 release since 3.2). A group's draws depend on its name, size and the seed only,
    so adding runs of other configurations to a results tree moves no interval."""
    streams = []
    for name, n in groups:
        rng = random.Random(f"{seed}:{name}")
        streams.append([[rng.randrange(n) for _ in range(n)] for _ in range(reps)])
    return [[s[r] for s in streams] for r in range(reps)]


def interval(values, level=0.95):
    """(low, high, undefined): the central `level` percentile interval of the replicates'
    values, leaving out the None ones (a statistic undefined in that replicate), and how many
    were None. (None, None, k) when all are."""
    defined = [v for v in values if v is not None]
    if not defined:
        return None, None, len(values)
    a = (1 - level) / 2
    return percentile(defined, a), percentile(defined, 1 - a), len(values) - len(defined)
