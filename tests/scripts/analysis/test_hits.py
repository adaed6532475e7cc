#!/usr/bin/env python3
"""slanalysis.hits: where a seed variant reaches a target and its time there, on
make_vclock_fixtures.py's runs (target dev CE 3.0; partial's seeds hit it at 200 and 300)."""
import analysis_env as env
import make_vclock_fixtures
from slanalysis.hits import Hit, selection_fraction
from slanalysis.network import PRESETS, Network
from slanalysis.profiles import load_profile
from slanalysis.variants import group_variants


class Hits(env.Case):
    def setUp(self):
        super().setUp()
        self.v = {x.name: x for x in group_variants(env.experiments(
            make_vclock_fixtures.write(self.work)))["transformer"]}
        self.prof = load_profile(env.fix_profile(self.work))

    def test_mean_over_seeds(self):
        h = Hit(self.v["tf-4node-partial"], "dev_ce", 3.0)
        # seeds hit at 200 and 300: mean t 250, X (2e7 + 3e7) / 2, Y (1800 + 2700) / 2
        self.assertTrue(h.reached)
        self.assertEqual(h.seed_steps, [200, 300])
        self.close(h.t, 250.0)
        self.close(h.X, 2.5e7, 1e-7)
        self.close(h.Y, 2250.0, 1e-7)
        # selection 0.01 s per step over the dense compute 0.1 s per step
        self.close(selection_fraction(h.variant, 0.1, h), 0.1)
        # map formula at c 0.1, 1 Gbit/s, latency 0, f 0.1: 250*0.1*1.1 + 2.5e7*8e-9 = 27.7
        self.close(h.time(0.1, Network("x", 1.0, 0.0), 0.1), 27.7)

    def test_miss(self):
        h = Hit(self.v["tf-4node-sparse"], "dev_ce", 3.0)
        self.assertFalse(h.reached)
        self.assertEqual(h.why_not(), "not reached by 1/1 seed(s) (tf-4node-sparse: best 3.500 at step 300)")
        self.assertEqual(selection_fraction(h.variant, 0.1, h), 0.0)

    def test_profile_time(self):
        # the profile's c 0.05, measured selection, 1gbe (8e-9 s/byte, 50 us):
        # s1 at 200: 10 + 2 + 2e7*8e-9 + 1800*5e-5 = 12.25; s2 at 300: 15 + 3 + 0.24 + 0.135
        # = 18.375; mean 15.3125
        h = Hit(self.v["tf-4node-partial"], "dev_ce", 3.0)
        times = h.profile_times(self.prof, PRESETS["1gbe"])
        self.close(times[0], 12.25)
        self.close(times[1], 18.375)
        self.close(h.profile_time(self.prof, PRESETS["1gbe"]), 15.3125)
        # one node at 600 steps (dev CE 6 - s/200 = 3.0): 600 * 0.05, no communication
        self.close(Hit(self.v["tf-1node-dense"], "dev_ce", 3.0).profile_time(self.prof, PRESETS["1gbe"]), 30.0)


if __name__ == "__main__":
    env.main()
