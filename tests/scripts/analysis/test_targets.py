#!/usr/bin/env python3
"""slanalysis.targets: reaching a target, interpolated crossings, plateaus, target rules."""
import analysis_env as env
import make_vclock_fixtures
from slanalysis.references import variant_references
from slanalysis.targets import (Target, best_of, crossing_step, final_value, first_hit,
                                first_row, plateau, reaches, target_for)
from slanalysis.variants import group_variants


class Fake:
    def __init__(self, series):
        self.series = series

    def values(self, key):
        return self.series


class Targets(env.Case):
    def test_reaches_and_first(self):
        self.assertTrue(reaches("dev_ce", 3.0, 3.0) and reaches("bleu", 20.0, 20.0))
        self.assertFalse(reaches("dev_ce", 3.1, 3.0) or reaches("bleu", 19.9, 20.0))
        rows = [{"step": 1, "bleu": None}, {"step": 2, "bleu": 21.0}, {"step": 3, "bleu": 25.0}]
        self.assertEqual(first_row(rows, "bleu", 20.0)["step"], 2)
        self.assertIsNone(first_row(rows, "bleu", 30.0))
        self.assertIsNone(first_row(rows, "bleu", None))
        self.assertEqual(first_hit([(100, 5.0), (200, 4.0), (300, 3.0)], "dev_ce", 3.5), 300)

    def test_crossing_step(self):
        ce = [(100, 5.0), (200, 4.0), (300, 3.0)]
        # 3.5 lies between 4.0 at 200 and 3.0 at 300: 200 + 100 * (4.0 - 3.5) / (4.0 - 3.0) = 250
        self.close(crossing_step(ce, "dev_ce", 3.5), 250.0)
        # 3.75: 200 + 100 * 0.25 / 1.0 = 225
        self.close(crossing_step(ce, "dev_ce", 3.75), 225.0)
        # reached exactly at a validation: that step
        self.close(crossing_step(ce, "dev_ce", 4.0), 200.0)
        # the first validation already reaches it: its step (no earlier point)
        self.close(crossing_step(ce, "dev_ce", 6.0), 100.0)
        self.assertIsNone(crossing_step(ce, "dev_ce", 2.0))
        # BLEU rises: 12 between 10 at 100 and 20 at 200: 100 + 100 * (10 - 12) / (10 - 20) = 120
        self.close(crossing_step([(100, 10.0), (200, 20.0)], "bleu", 12.0), 120.0)

    def test_best_and_final(self):
        self.assertEqual(best_of([(100, 3.0), (200, 2.5), (300, 2.5)], "dev_ce"), (2.5, 200))
        self.assertEqual(best_of([(100, 3.0), (200, 2.5)], "bleu"), (3.0, 100))
        self.assertEqual(best_of([], "bleu"), (None, None))
        self.assertEqual(final_value([(100, 3.0), (200, 2.5)]), 2.5)
        self.assertIsNone(final_value([]))

    def test_plateau(self):
        # last 20% of 1000 steps = validations at >= 800; mean and relative change per seed
        pv, ch = plateau(Fake([[(100, 4.0), (800, 3.0), (900, 2.9), (1000, 2.95)],
                               [(100, 4.0), (800, 3.2), (900, 3.1), (1000, 3.1)]]), "dev_ce")
        self.close(pv, ((3.0 + 2.9 + 2.95) / 3 + (3.2 + 3.1 + 3.1) / 3) / 2)
        self.close(ch, ((2.95 - 3.0) / 3.0 + (3.1 - 3.2) / 3.2) / 2)
        self.assertEqual(plateau(Fake([[]]), "dev_ce"), (None, None))

    def test_target_rules(self):
        variants = group_variants(env.experiments(make_vclock_fixtures.write(self.work)))["transformer"]
        d4, _ = variant_references(variants)
        # plateau: validations at >= 240 of 300: {300: 3.0} -> 1.02 x 3.0
        self.close(target_for(d4, "dev_ce", "plateau")[0], 3.06)
        # BLEU = 40 - 10 CE: plateau 10.0 -> 0.95 x 10
        self.close(target_for(d4, "bleu", "plateau")[0], 9.5)
        # v1: 1.1 x the last dev CE 3.0; 0.9 x the best dev BLEU 10
        self.close(target_for(d4, "dev_ce", "v1")[0], 3.3)
        self.close(target_for(d4, "bleu", "v1")[0], 9.0)
        self.assertEqual(target_for(d4, "dev_ce", "v1", explicit=2.0), (2.0, "given"))
        self.assertEqual(target_for(None, "dev_ce", "v1"), (None, "no 4-node dense run"))

    def test_target_label(self):
        self.assertEqual(Target("bleu", 20.0, "--target-bleu").label(),
                         "dev BLEU >= 20.00 (--target-bleu)")
        self.assertEqual(Target("dev_ce", 2.0, "x").label(), "dev CE <= 2.000 (x)")


if __name__ == "__main__":
    env.main()
