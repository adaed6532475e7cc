#!/usr/bin/env python3
"""slanalysis.formatting: how numbers and tables are written."""
import analysis_env as env
from slanalysis.formatting import fmt, human_bytes, md_table, mean_sd, pct, ratio, slug, wrap


class Formatting(env.Case):
    def test_cells(self):
        self.assertEqual(fmt(None), "n/a")
        self.assertEqual(fmt(2.345, 1, " s"), "2.3 s")
        self.assertEqual(ratio(120.0, 90.0), "1.33x")      # 120 / 90 = 1.333
        self.assertEqual(ratio(None, 90.0), "n/a")
        self.assertEqual(ratio(120.0, 0.0), "n/a")
        self.assertEqual(pct(9.5, 21.4), "-55.6%")         # (9.5 - 21.4) / 21.4 = -0.556
        self.assertEqual(pct(1.0, 0.0), "n/a")
        self.assertEqual(human_bytes(252_000), "252.00 kB")
        self.assertEqual(human_bytes(6_000_000), "6.00 MB")
        self.assertEqual(human_bytes(0), "0 B")

    def test_mean_sd(self):
        # 2.8, 2.9: mean 2.85; sample sd sqrt((0.05^2 + 0.05^2) / 1) = 0.0707
        self.assertEqual(mean_sd([2.8, 2.9]), "2.850 +- 0.071 (n=2)")
        self.assertEqual(mean_sd([200.0, 300.0], 0), "250 +- 71 (n=2)")
        self.assertEqual(mean_sd([3.0, None]), "3.000 (n=1)")
        self.assertEqual(mean_sd([None]), "n/a")

    def test_table_slug_wrap(self):
        self.assertEqual(md_table(["a", "b"], [["1", "2"]]), ["| a | b |", "|---|---|", "| 1 | 2 |"])
        self.assertEqual(slug("This CPU, 1 thread (measured)"), "this-cpu-1-thread-measured")
        self.assertEqual(wrap("one two three four", 9), ["one two", "three", "four"])


if __name__ == "__main__":
    env.main()
