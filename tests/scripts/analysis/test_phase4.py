#!/usr/bin/env python3
"""slanalysis.phase4 and `analyze.py scaling`: phase 4's readings on make_phase4_fixtures.py's
tree (fix profile, 1gbe with PAPER.md's link terms).

Hand arithmetic. Target: x1.05 of 4-node dense's mean final dev CE over its complete seeds,
(3.0 + 3.5) / 2 = 3.25 -> 3.4125. Updates to it, interpolated (s0, x0) -> (s1, x1):
s0 + 100 (x0 - 3.4125) / (x0 - x1):
  4-node dense s1    (200, 5.0) -> (300, 3.0): 200 + 100 * 1.5875 / 2   = 279.375
  4-node partial s1  (100, 5.0) -> (200, 3.0): 100 + 100 * 1.5875 / 2   = 179.375
  2-node dense       (200, 4.0) -> (300, 3.2): 200 + 100 * 0.5875 / 0.8 = 273.4375
  2-node partial     (200, 3.5) -> (300, 3.0): 200 + 100 * 0.0875 / 0.5 = 217.5
  rho 0.9            (100, 5.0) -> (200, 3.2): 100 + 100 * 1.5875 / 1.8 = 188.19444...
  1 node, equal tokens: 6 - s / 400 = 3.4125 at s = 1035; equal updates (ends 5.25) and rho
  0.999 (ends 3.6): never.
Times = updates x seconds per update (the fixture's docstring)."""
import json
import os

import analysis_env as env
import make_phase4_fixtures as fx
from slanalysis.network import PRESETS
from slanalysis.phase4 import Phase4, fmt_speedup, lines
from slanalysis.profiles import load_profile
from slanalysis.target_sweep import INF

NET = PRESETS["1gbe"]
T_D4, T_P4 = 279.375 * 0.0666, 179.375 * 0.06125     # 18.606375, 10.98671875
T_D2, T_P2 = 273.4375 * 0.0583, 217.5 * 0.06065       # 15.94140625, 13.191375
T_ONE = 1035 * 0.05                                   # 51.75
T_RHO09 = 100 + 100 * 1.5875 / 1.8


class Phase4Readings(env.Case):
    def setUp(self):
        super().setUp()
        self.root = fx.write(self.work)
        self.prof = load_profile(env.fix_profile(self.work))

    def phase4(self):
        return Phase4(self.root, "transformer", env.experiments(self.root))

    def test_target_and_points(self):
        ph = self.phase4()
        self.assertEqual((ph.S, ph.dense_seeds), (300, 2))
        self.close(ph.target, 3.4125)
        names = [(n, p.name) for n, _, p in ph.scaling]
        self.assertEqual(names, [(1, "transformer-1node-dense-equal-tokens-lr0.002-S300"),
                                 (2, "transformer-2node-dense-lr0.004-S300"),
                                 (2, "transformer-2node-sparse-partial-k500-S300"),
                                 (4, "transformer-4node-dense-lr0.004-S300"),
                                 (4, "transformer-4node-sparse-partial-k500-S300")])
        self.assertEqual([p.name for _, p in ph.rho],
                         ["transformer-4node-sparse-partial-k500-rho0.9-S300",
                          "transformer-4node-sparse-partial-k500-S300",
                          "transformer-4node-sparse-partial-k500-rho0.999-S300"])
        steps = {p.name: p.step(ph.target) for _, _, p in ph.scaling}
        for name, want in (("transformer-4node-dense-lr0.004-S300", 279.375),
                           ("transformer-4node-sparse-partial-k500-S300", 179.375),
                           ("transformer-2node-dense-lr0.004-S300", 273.4375),
                           ("transformer-2node-sparse-partial-k500-S300", 217.5),
                           ("transformer-1node-dense-equal-tokens-lr0.002-S300", 1035.0)):
            self.close(steps[name], want, what=name)
        self.close(ph.rho[0][1].step(ph.target), T_RHO09)
        self.assertIsNone(ph.rho[2][1].step(ph.target))
        self.assertIsNone(ph.one_node_updates.step(ph.target))
        # final values: the validation at the last update; test BLEU 40 - 10 x best dev CE
        p = ph.scaling[1][2]
        self.assertEqual((p.final, p.bleu), (3.2, 8.0))
        self.assertEqual([p.bytes for _, p in ph.rho], [40000.0, 4000.0, 400.0])

    def test_times_and_speedups(self):
        ph = self.phase4()
        one, d2, p2, d4, p4 = (p for _, _, p in ph.scaling)
        for p, want in ((one, T_ONE), (d2, T_D2), (p2, T_P2), (d4, T_D4), (p4, T_P4)):
            self.close(p.time(ph.target, self.prof, NET), want, what=p.name)
        self.close(ph.over(one, d2, self.prof, NET), T_ONE / T_D2)      # 3.2463
        self.close(ph.over(one, p4, self.prof, NET), T_ONE / T_P4)      # 4.7102
        self.assertEqual(fmt_speedup(ph.over(one, d2, self.prof, NET), 2), "3.25x (1.62)")
        self.assertEqual(fmt_speedup(ph.over(one, p2, self.prof, NET), 2),
                         f"{T_ONE / T_P2:.2f}x ({T_ONE / T_P2 / 2:.2f})")    # 3.92x (1.96)
        rho09, rho099, rho0999 = (p for _, p in ph.rho)
        self.close(ph.over(d4, rho09, self.prof, NET), T_D4 / (T_RHO09 * 0.06845))
        self.close(ph.over(d4, rho099, self.prof, NET), T_D4 / T_P4)    # 1.6935
        self.assertEqual(ph.over(d4, rho0999, self.prof, NET), 0.0)
        self.assertEqual(fmt_speedup(0.0), "not reached")
        self.assertEqual(fmt_speedup(INF), "reference not reached")

    def test_unfinished_and_missing_runs(self):
        run = os.path.join(self.root, "transformer", "transformer-2node-dense-lr0.004-S300-s1")
        with open(os.path.join(run, "summary.json")) as f:
            summary = json.load(f)
        summary.update(status="running", steps=200)
        with open(os.path.join(run, "summary.json"), "w") as f:
            json.dump(summary, f)
        import shutil
        shutil.rmtree(os.path.join(self.root, "transformer",
                                   "transformer-4node-sparse-partial-k500-rho0.999-S300-s1"))
        ph = self.phase4()
        d2 = ph.scaling[1][2]
        self.assertEqual(d2.state, "running (update 200)")
        self.assertIsNone(ph.over(ph.one(), d2, self.prof, NET))
        self.assertEqual(ph.rho[2][1].state, "not run yet")
        text = "\n".join(lines(ph, [self.prof], [NET]))
        self.assertIn("| 2 | dense | `transformer-2node-dense-lr0.004-S300-s1` | - | - | "
                      "running (update 200) |", text)
        self.assertIn("| 2 | dense | pending |", text)
        self.assertIn("| 0.999 | `transformer-4node-sparse-partial-k500-rho0.999-S300-s1` | - | - "
                      "| - | not run yet |", text)

    def test_no_target_while_dense_has_no_complete_seed(self):
        import shutil
        for seed in (1, 2):
            shutil.rmtree(os.path.join(self.root, "transformer", f"{fx.DENSE4}-s{seed}"))
        ph = self.phase4()
        self.assertIsNone(ph.target)
        self.assertEqual(ph.why, f"`{fx.DENSE4}` has no complete seed yet: no target")
        text = "\n".join(lines(ph, [self.prof], [NET]))
        self.assertIn(f"(no target: `{fx.DENSE4}` has no complete seed yet: no target)", text)
        # the runs' own values stay; no updates to a target that does not exist, no times
        self.assertIn("| 2 | dense | `transformer-2node-dense-lr0.004-S300-s1` | 3.2000 | 8.00 | "
                      "no target yet |", text)
        self.assertNotIn("Time to target", text)

    def test_no_budget_yet(self):
        with open(os.path.join(self.root, "transformer", "plan.json"), "w") as f:
            json.dump({"budget": {"S": None}}, f)
        ph = self.phase4()
        self.assertIn("no budget S", ph.why)
        self.assertEqual(lines(ph, [self.prof], [NET])[2], "(no budget S in transformer/plan.json yet)")

    def test_command(self):
        out = os.path.join(self.work, "out")
        args = ["scripts/analyze.py", "scaling", self.root, "--model", "transformer", "--no-plot",
                "--profile", env.fix_profile(self.work), "--network", "1gbe", "--link-terms",
                "paper", "--out", out]
        r = env.run_script(args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("target dev CE x1.05 of 4-node dense's mean final over its 2 complete "
                      "seed(s) = 3.4125", r.stdout)
        self.assertIn(f"| 4 | sparse+partial | {T_P4 / 3600:.3g} h |", r.stdout)
        self.assertIn(f"| 0.99 | {T_D4 / T_P4:.2f}x |", r.stdout)                # 1.69x
        with open(os.path.join(out, "scaling.md")) as f:
            self.assertEqual(f.read(), r.stdout)
        r = env.run_script(["scripts/analyze.py", "scaling", os.path.join(self.work, "nope")])
        self.assertEqual(r.returncode, 2)
        # another target: marked as outside the rules, written beside the pre-registered one.
        # x1.25 -> 4.0625; rho 0.999 (200, 4.5) -> (300, 3.6): 200 + 100 * 0.4375 / 0.9 = 248.6
        r = env.run_script(args + ["--factor", "1.25"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("**Target x1.25, not the pre-registered x1.05**", r.stdout)
        self.assertIn("| 0.999 | `transformer-4node-sparse-partial-k500-rho0.999-S300-s1` | 400 B | "
                      "3.6000 | 4.00 | 249 |", r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(out, "scaling-x1.25.md")))
        r = env.run_script(args + ["--factor", "0"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--factor", r.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
