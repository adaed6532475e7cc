#!/usr/bin/env python3
"""slanalysis.summary: plot.py's summary table (the whole summary.md is checked by
tests/scripts/check_plot.py)."""
import analysis_env as env
from slanalysis.experiment import by_model
from slanalysis.notes import Notes
from slanalysis.references import summary_references
from slanalysis.summary import default_target, summary_lines, time_to


class Summary(env.Case):
    def setUp(self):
        super().setUp()
        self.groups = by_model(env.experiments(env.plot_fixtures(self.work)))

    def test_time_to(self):
        g = {e.name: e for e in self.groups["transformer"]}
        # BLEU 9, 16, 20, 22 at 250..1000; >= 20 first at 750: wall 750 * 0.5, modeled on
        # 10gbe 750 * (0.10 + 0.06)
        wall, modeled = time_to(g["paper-small/tf-4node-dense"], 20.0, "10gbe")
        self.close(wall, 375.0)
        self.close(modeled, 120.0)
        self.assertIsNone(time_to(g["paper-small/tf-4node-sparse"], 20.0, "10gbe"))

    def test_default_target(self):
        # 90% of the best dev BLEU over the model's runs: transformer 24 -> 21.6
        t, how = default_target(self.groups["transformer"])
        self.close(t, 21.6)
        self.assertEqual(how, "90% of the best, 24.00")

    def test_rows(self):
        targets = {m: default_target(g) for m, g in self.groups.items()}
        refs = {m: summary_references(g, None) for m, g in self.groups.items()}
        lines = summary_lines("python3 x", self.groups, targets, refs, "10gbe", ["a.png"], Notes("t"))
        row = next(line for line in lines if line.startswith("| paper-small/tf-4node-partial"))
        # target 21.6 first at 750: modeled 750 * (0.10 + 0.02) = 90; dense4 at 1000: 160;
        # 1 node at 2000: 200 -> 2.22x, 1.78x
        self.assertEqual(row.split(" | ")[8:12], ["90.0 s", "252.00 kB", "2.22x", "1.78x"])
        self.assertEqual(lines[-1], "- [a.png](a.png)")


if __name__ == "__main__":
    env.main()
