#!/usr/bin/env python3
"""slanalysis.curves without matplotlib: series, axes, colours and styles of the figures
(the drawing itself: test_figures.py, check_plot.py)."""
import analysis_env as env
from slanalysis.curves import MethodColors, series, style, time_unit, x_getters


class Curves(env.Case):
    def test_series_and_axes(self):
        rows = [{"step": 1, "bleu": 3.0, "modeled_time_s": {"1gbe": 2.0}},
                {"step": 2, "bleu": None}, {"step": 3, "bleu": 5.0, "wall_s": 9.0}]
        steps, wall, modeled = x_getters("1gbe")
        self.assertEqual([s[0] for s in (steps, wall, modeled)], ["steps", "wall", "modeled-1gbe"])
        self.assertEqual(series(rows, steps[2], "bleu"), ([1.0, 3.0], [3.0, 5.0]))
        self.assertEqual(series(rows, wall[2], "bleu"), ([9.0], [5.0]))
        self.assertEqual(series(rows, modeled[2], "bleu"), ([2.0], [3.0]))
        # seconds up to 2 minutes, minutes up to 2 hours, then hours
        self.assertEqual(time_unit(119), ("s", 1.0))
        self.assertEqual(time_unit(120), ("min", 60.0))
        self.assertEqual(time_unit(7200), ("h", 3600.0))

    def test_colors(self):
        color_of = MethodColors()
        self.assertEqual(color_of("dense"), "black")
        # labels the table does not know get the next free colour, the same one every time
        self.assertEqual([color_of(m) for m in ("powersgd", "diloco", "powersgd")],
                         ["tab:brown", "tab:pink", "tab:brown"])
        self.assertEqual(style("sparse+partial", 4, color_of), {"color": "tab:blue", "linestyle": "-"})
        self.assertEqual(style("dense", 3, color_of)["linestyle"], "-.")


if __name__ == "__main__":
    env.main()
