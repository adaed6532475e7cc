#!/usr/bin/env python3
"""slanalysis.bootstrap: percentiles, deterministic resampling draws, intervals."""
import math
import random

import analysis_env as env
from slanalysis.bootstrap import draws, interval, named_draws, percentile


class Bootstrap(env.Case):
    def test_percentile(self):
        xs = [4.0, 1.0, 3.0, 2.0]          # sorted 1, 2, 3, 4
        self.assertEqual(percentile(xs, 0.0), 1.0)
        self.assertEqual(percentile(xs, 1.0), 4.0)
        # q 0.5: position 0.5 * 3 = 1.5 -> 2 + 0.5 * (3 - 2) = 2.5
        self.close(percentile(xs, 0.5), 2.5)
        # q 0.025: position 0.075 -> 1 + 0.075 * (2 - 1) = 1.075
        self.close(percentile(xs, 0.025), 1.075)
        # q 0.975: position 2.925 -> 3 + 0.925 * (4 - 3) = 3.925
        self.close(percentile(xs, 0.975), 3.925)
        # inf: past the last finite value it is inf, at an exact position it is that value
        self.assertEqual(percentile([1.0, math.inf], 0.5), math.inf)
        self.assertEqual(percentile([1.0, math.inf], 0.0), 1.0)
        self.assertIsNone(percentile([], 0.5))

    def test_draws(self):
        d = draws([1, 3, 2], 4, seed=7)
        self.assertEqual([[len(g) for g in rep] for rep in d], [[1, 3, 2]] * 4)
        self.assertTrue(all(0 <= i < n for rep in d for g, n in zip(rep, (1, 3, 2)) for i in g))
        self.assertEqual(d, draws([1, 3, 2], 4, seed=7))       # the same seed, the same draws
        self.assertNotEqual(d, draws([1, 3, 2], 4, seed=8))
        # the draws are random.Random(seed).randrange(n), group after group, replicate after
        # replicate: the first replicate of seed 7 is
        rng = random.Random(7)
        self.assertEqual(d[0], [[rng.randrange(1)], [rng.randrange(3) for _ in range(3)],
                                [rng.randrange(2) for _ in range(2)]])

    def test_named_draws(self):
        d = named_draws([("a", 1), ("b", 3)], 4, seed=7)
        self.assertEqual([[len(g) for g in rep] for rep in d], [[1, 3]] * 4)
        # group b's stream is random.Random("7:b"), replicate after replicate
        rng = random.Random("7:b")
        want = [[rng.randrange(3) for _ in range(3)] for _ in range(4)]
        self.assertEqual([rep[1] for rep in d], want)
        # another group beside it, before or after, moves none of b's draws
        other = named_draws([("c", 2), ("b", 3), ("a", 1)], 4, seed=7)
        self.assertEqual([rep[1] for rep in other], want)
        self.assertNotEqual([rep[0] for rep in named_draws([("b", 3)], 4, seed=8)], want)

    def test_interval(self):
        # None (undefined) values are counted and left out: 1, 2, 3, 4 as above
        lo, hi, undefined = interval([2.0, None, 4.0, 1.0, 3.0])
        self.close(lo, 1.075)
        self.close(hi, 3.925)
        self.assertEqual(undefined, 1)
        # 90%: q 0.05 -> position 0.15 -> 1.15; q 0.95 -> position 2.85 -> 3.85
        lo, hi, _ = interval([1.0, 2.0, 3.0, 4.0], 0.90)
        self.close(lo, 1.15)
        self.close(hi, 3.85)
        self.assertEqual(interval([None, None]), (None, None, 2))


if __name__ == "__main__":
    env.main()
