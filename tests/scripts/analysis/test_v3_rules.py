#!/usr/bin/env python3
"""slanalysis.v3_rules: the pre-registered lr and budget rules of reproduction v3, on
hand-made numbers."""
import unittest

import analysis_env as env  # noqa: F401 (sys.path)
from slanalysis.v3_rules import choose_budget, choose_lr, lr_label, warmup_for, within


class LearningRate(unittest.TestCase):
    def test_interior_choice_is_final(self):
        # lowest final dev CE at 0.004 (2.1 < 2.2 < 2.3 < 2.5), inside the grid
        self.assertEqual(choose_lr({0.001: 2.5, 0.002: 2.2, 0.004: 2.1, 0.008: 2.3}), (0.004, None))

    def test_edges_extend_the_grid(self):
        # best at the top (0.008): run 0.016 next; at the bottom (0.001): run 0.0005
        self.assertEqual(choose_lr({0.001: 2.5, 0.002: 2.4, 0.004: 2.2, 0.008: 2.1}), (0.008, 0.016))
        self.assertEqual(choose_lr({0.001: 2.0, 0.002: 2.4, 0.004: 2.6, 0.008: 3.1}), (0.001, 0.0005))
        # after the extension the old edge is interior: final
        self.assertEqual(choose_lr({0.0005: 2.2, 0.001: 2.0, 0.002: 2.4}), (0.001, None))

    def test_divergence_ranks_last_and_ties_go_to_the_smaller_lr(self):
        self.assertEqual(choose_lr({0.002: 2.2, 0.004: None, 0.008: float("nan")}), (0.002, 0.001))
        self.assertEqual(choose_lr({0.001: 2.3, 0.002: 2.2, 0.004: 2.2}), (0.002, None))
        self.assertEqual(choose_lr({0.004: None}), (None, None))
        self.assertEqual(choose_lr({}), (None, None))

    def test_limits_stop_the_extension(self):
        self.assertEqual(choose_lr({0.032: 2.3, 0.064: 2.1}), (0.064, None))
        self.assertEqual(choose_lr({0.000125: 2.1, 0.00025: 2.3}), (0.000125, None))

    def test_a_lower_range(self):
        # DeMo's grid starts at 0.000125; with lr_min 0.000125 / 8 the bottom edge extends
        self.assertEqual(choose_lr({0.000125: 2.1, 0.00025: 2.3}, 0.000125 / 8, 0.008),
                         (0.000125, 0.0000625))
        self.assertEqual(choose_lr({0.004: 2.3, 0.008: 2.1}, 0.000125 / 8, 0.008), (0.008, None))

    def test_warmup_and_labels(self):
        # 200 up to lr 0.004, then 200 x lr / 0.004
        self.assertEqual([warmup_for(x) for x in (0.001, 0.004, 0.008, 0.016)], [200, 200, 400, 800])
        self.assertEqual([lr_label(x) for x in (0.004, 0.0005, 0.016)], ["0.004", "0.0005", "0.016"])


class Budget(unittest.TestCase):
    def test_within(self):
        # 2.20 -> 2.16: -1.82% (<= 2%), BLEU +0.9 (<= 1.0)
        self.assertTrue(within((2.20, 30.0), (2.16, 30.9)))
        # 2.20 -> 2.15: -2.27%
        self.assertFalse(within((2.20, 30.0), (2.15, 30.0)))
        # BLEU +1.1
        self.assertFalse(within((2.20, 30.0), (2.20, 31.1)))
        self.assertFalse(within((2.20, None), (2.20, 30.0)))

    def test_doubling(self):
        cap = 48000
        self.assertEqual(choose_budget({}, cap), (None, 3000, "running"))
        self.assertEqual(choose_budget({3000: (2.7, 22.0)}, cap), (None, 6000, "running"))
        # 3000 vs 6000: -16.5% -> not met, run 12000
        self.assertEqual(choose_budget({3000: (2.7, 22.0), 6000: (2.2545, 28.7)}, cap),
                         (None, 12000, "running"))
        # 6000 vs 12000: 2.2545 -> 2.21 = -1.97%, BLEU +0.8 -> S = 6000
        self.assertEqual(choose_budget({3000: (2.7, 22.0), 6000: (2.2545, 28.7),
                                        12000: (2.21, 29.5)}, cap), (6000, None, "met"))

    def test_cap(self):
        # cap 12000: 3000 vs 6000 not met; 2 x 6000 = 12000 <= cap is run; 6000 vs 12000 not
        # met and 2 x 12000 > cap -> S = 6000 (the largest S whose 2S ran), rule not met
        f = {3000: (2.7, 22.0), 6000: (2.25, 28.7), 12000: (2.0, 31.0)}
        self.assertEqual(choose_budget(f, 12000), (6000, None, "capped"))
        self.assertEqual(choose_budget({3000: (2.7, 22.0)}, 5000), (None, None, "capped"))


if __name__ == "__main__":
    unittest.main()
