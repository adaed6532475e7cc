#!/usr/bin/env python3
"""slanalysis.target_sweep and `analyze.py speedup-vs-target`: speed-up against the target with
bootstrap intervals, on make_target_fixtures.py's seeds.

Hand arithmetic used below. Profile "fix": c = 0.05 s, measured selection; network 1gbe
(8e-9 s/byte, 50 us/hop). Virtual seconds per step (every quantity is constant per step):
  dense    0.05 + 2e6*8e-9 + 12*50e-6            = 0.05 + 0.016 + 0.0006            = 0.0666
  partial  0.05 + 0.01 (SEL) + 1e5*8e-9 + 9*5e-5 = 0.05 + 0.01 + 0.0008 + 0.00045   = 0.06125
  1 node   0.05
Reference value: the mean of 4-node dense's final dev CE 3.0 and 3.5 = 3.25.
Steps to target T, interpolated between validations (s0, x0) -> (s1, x1):
  s0 + (s1 - s0) (x0 - T) / (x0 - x1)"""

import os

import analysis_env as env
import make_target_fixtures
from slanalysis.network import PRESETS
from slanalysis.profiles import load_profile
from slanalysis.references import variant_references
from slanalysis.target_sweep import INF, Sweep, cell_text, speedup, steps_text
from slanalysis.variants import group_variants

NET = PRESETS["1gbe"]
D, P, ONE = 0.0666, 0.06125, 0.05     # virtual seconds per step (above)

# x1.25 -> T = 4.0625:
#   dense s1 (200, 5.0)->(300, 3.0): 200 + 100 * 0.9375 / 2 = 246.875
#   dense s2 (100, 6.0)->(200, 4.0): 100 + 100 * 1.9375 / 2 = 196.875
#   partial s1 (100, 5.0)->(200, 4.0): 100 + 100 * 0.9375 / 1 = 193.75
#   partial s2 (100, 5.5)->(200, 3.5): 100 + 100 * 1.4375 / 2 = 171.875
#   1 node (300, 4.5)->(400, 4.0): 300 + 100 * 0.4375 / 0.5 = 387.5
#   sparse s1 (5.5, 5.0, 4.5): never
T_DENSE = (246.875 + 196.875) / 2 * D          # 221.875 * 0.0666 = 14.776875
T_PARTIAL = (193.75 + 171.875) / 2 * P         # 182.8125 * 0.06125 = 11.197265625
T_ONE = 387.5 * ONE                            # 19.375
# Three replicates of hand-picked draws (groups in variant order: tf-1node-dense,
# tf-4node-dense, tf-4node-dense-2xS, tf-4node-partial, tf-4node-sparse):
#   A: dense [s1, s1], partial [s1, s1]: reference 3.0 -> T 3.75: dense s1 200 + 100 * 1.25 / 2
#      = 262.5; partial s1 200 + 100 * 0.25 / 1 = 225; 1 node 400 + 100 * 0.25 / 0.5 = 450
#   B: dense [s2, s2], partial [s2, s2]: reference 3.5 -> T 4.375: dense s2 100 + 100 * 1.625
#      / 2 = 181.25; partial s2 100 + 100 * 1.125 / 2 = 156.25; 1 node 300 + 100 * 0.125 / 0.5
#      = 325
#   C: dense [s2, s1], partial [s1, s2]: the seeds as they are (the point estimate)
DRAWS = [[[0], [0, 0], [0], [0, 0], [0]],
         [[0], [1, 1], [0], [1, 1], [0]],
         [[0], [1, 0], [0], [0, 1], [0]]]
S_A, S_B, S_C = 262.5 * D / (225 * P), 181.25 * D / (156.25 * P), T_DENSE / T_PARTIAL
# sorted S_B 1.2613 < S_A 1.2686 < S_C 1.3197; 2.5%: position 0.05, 97.5%: position 1.95
LOW4, HIGH4 = S_B + 0.05 * (S_A - S_B), S_A + 0.95 * (S_C - S_A)
# over 1 node: A 450 * 0.05 / (225 * P) = 1.6327, B 325 * 0.05 / (156.25 * P) = 1.6980,
# C 19.375 / T_PARTIAL = 1.7303 (already sorted)
O_A, O_B, O_C = 450 * ONE / (225 * P), 325 * ONE / (156.25 * P), T_ONE / T_PARTIAL
LOW1, HIGH1 = O_A + 0.05 * (O_B - O_A), O_B + 0.95 * (O_C - O_B)


class TargetSweep(env.Case):
    def setUp(self):
        super().setUp()
        self.root = make_target_fixtures.write(self.work)
        self.variants = group_variants(env.experiments(self.root))["transformer"]
        self.v = {x.name: x for x in self.variants}
        self.d4, self.d1 = variant_references(self.variants)
        self.prof = load_profile(env.fix_profile(self.work))

    def sweep(self, **kw):
        s = Sweep(self.variants, "dev_ce", self.d4, reps=3, **kw)
        s.draws = DRAWS
        return s

    def test_references_and_targets(self):
        self.assertEqual((self.d4.name, self.d1.name), ("tf-4node-dense", "tf-1node-dense"))
        s = self.sweep()
        self.assertEqual(s.finals, [3.0, 3.5])
        self.close(s.target(1.25), 4.0625)                 # 1.25 * 3.25
        self.close(s.target(1.25, [0, 0]), 3.75)           # 1.25 * 3.0
        self.assertEqual(self.sweep(reference="worst").reference_value(), 3.5)

    def test_steps(self):
        s = self.sweep()
        for got, want in zip(s.steps(1.25, self.v["tf-4node-dense"]), (246.875, 196.875)):
            self.close(got, want)
        for got, want in zip(s.steps(1.25, self.v["tf-4node-partial"]), (193.75, 171.875)):
            self.close(got, want)
        self.assertEqual(s.steps(1.25, self.v["tf-4node-sparse"]), [None])
        # x1.5 -> T 4.875: sparse (200, 5.0)->(300, 4.5): 200 + 100 * 0.125 / 0.5 = 225
        self.close(s.steps(1.5, self.v["tf-4node-sparse"])[0], 225.0)
        # steps cell: mean 182.8125, sd |193.75 - 171.875| / sqrt(2) = 15.47
        self.assertEqual(steps_text(s.steps(1.25, self.v["tf-4node-partial"])), "183 +- 15 (n=2)")
        self.assertEqual(steps_text([None]), "missed by 1/1")

    def test_cells(self):
        s = self.sweep()
        c = s.cell(1.25, self.prof, NET, self.v["tf-4node-partial"], self.d4)
        self.close(c.t_ref, T_DENSE)
        self.close(c.t, T_PARTIAL)
        self.close(c.point, T_DENSE / T_PARTIAL)
        self.close(c.low, LOW4)
        self.close(c.high, HIGH4)
        self.assertEqual(c.undefined, 0)
        self.assertEqual(cell_text(c), f"{S_C:.2f}x [{LOW4:.2f}, {HIGH4:.2f}]")   # 1.32x [1.26, 1.32]
        c = s.cell(1.25, self.prof, NET, self.v["tf-4node-partial"], self.d1)
        self.close(c.point, O_C)
        self.close(c.low, LOW1)
        self.close(c.high, HIGH1)
        # 1 node over 4-node dense: 14.776875 / 19.375 = 0.76x (and no interval width from 1 seed
        # of the 1-node run: A 262.5*D / 22.5, B 181.25*D / 16.25, C T_DENSE / 19.375)
        c = s.cell(1.25, self.prof, NET, self.d1, self.d4)
        self.close(c.point, T_DENSE / T_ONE)
        self.assertEqual(cell_text(s.cell(1.25, self.prof, NET, self.v["tf-4node-sparse"], self.d4)),
                         "not reached")

    def test_reference_not_reached_at_x1(self):
        # x1.00 of the mean (3.25): dense s2 ends at 3.5 and never gets there
        s = self.sweep()
        c = s.cell(1.0, self.prof, NET, self.v["tf-4node-partial"], self.d4)
        self.assertEqual((c.t_ref, cell_text(c)), (INF, "reference not reached"))
        # worst seed (3.5): dense s1 (200, 5.0)->(300, 3.0): 200 + 100 * 1.5 / 2 = 275; s2 reaches
        # 3.5 at 300; partial s1 200 + 100 * 0.5 / 1 = 250, s2 (100, 5.5)->(200, 3.5): 200
        w = self.sweep(reference="worst")
        c = w.cell(1.0, self.prof, NET, self.v["tf-4node-partial"], self.d4)
        self.close(c.point, (275 + 300) / 2 * D / ((250 + 200) / 2 * P))

    def test_one_seed_has_no_interval_and_a_running_variant_no_numbers(self):
        s = self.sweep()
        # tf-4node-sparse has one seed: a point, no interval (nothing of it to resample)
        one = Sweep(self.variants, "dev_ce", self.d4, reps=3)
        c = one.cell(1.5, self.prof, NET, self.v["tf-4node-sparse"], self.d4)
        self.assertIsNone(c.low)
        self.assertTrue(cell_text(c).endswith("x"), cell_text(c))
        # a variant none of whose seeds has finished: its curve stops where the run is now
        for r in self.v["tf-4node-sparse"].runs:
            r.status = "running"
        from slanalysis.target_sweep import sweep_lines
        text = "\n".join(sweep_lines("transformer", s, [1.25], [self.prof], [NET], self.d1,
                                      self.variants))
        self.assertIn("| tf-4node-sparse | sparse | 4 | 1 | running (update 300) |", text)
        self.assertNotIn("| tf-4node-sparse | sparse | 4 | 1 | not reached |", text)
        self.assertIn("A variant of one seed gets a point estimate and no interval", text)
        # the reference itself still running: no targets at all
        for r in self.d4.runs:
            r.status = "running"
        self.assertIn("has not finished yet", self.sweep().ok())

    def test_speedup_rules(self):
        self.assertEqual(speedup(2.0, 1.0), 2.0)
        self.assertEqual(speedup(2.0, INF), 0.0)
        self.assertEqual(speedup(INF, 1.0), INF)
        self.assertIsNone(speedup(INF, INF))

    def test_command(self):
        prof = env.fix_profile(self.work)
        args = ["scripts/analyze.py", "speedup-vs-target", self.root, "--no-plot", "--profile", prof,
                "--network", "1gbe", "--factors", "1.0,1.25,1.5", "--boot", "50",
                "--out", self.work + "/o", "--glance", "1.25", "--link-terms", "paper"]
        r = env.run_script(args)
        self.assertEqual(r.returncode, 0, r.stderr)
        again = env.run_script(args)
        self.assertEqual(r.stdout, again.stdout)            # a fixed resampling seed
        with open(self.work + "/o/speedup-vs-target-dev-ce.md") as f:
            self.assertEqual(f.read(), r.stdout)
        self.assertIn("Targets: x1.00 = 3.2500, x1.25 = 4.0625, x1.50 = 4.8750", r.stdout)
        # steps of partial: x1.00 (T 3.25) 200 + 100 * 0.75 / 1 = 275 and 200 + 100 * 0.25 / 0.25
        # = 300 -> 287.5 +- 17.7; x1.25 as above; x1.50 (T 4.875) 100 + 100 * 0.125 / 1 = 112.5
        # and 100 + 100 * 0.625 / 2 = 131.25 -> 121.9 +- 13.3
        self.assertIn("| tf-4node-partial | sparse+partial | 4 | 2 | 288 +- 18 (n=2) | "
                      "183 +- 15 (n=2) | 122 +- 13 (n=2) |", r.stdout)
        # the point estimates do not depend on the draws: x1.25 1.32x over dense, 1.73x over 1 node
        line = next(x for x in r.stdout.splitlines() if x.startswith("| tf-4node-partial")
                    and "reference not reached" in x)
        self.assertIn(f"| {S_C:.2f}x [", line)
        self.assertIn(f"| {O_C:.2f}x [", r.stdout)
        # at a glance: one target (x1.25, T 4.0625), a column per profile x network, the same
        # cells as the sections below
        self.assertIn("### transformer at a glance: speed-up over 4-node dense (`tf-4node-dense`) "
                      "at x1.25 (dev CE 4.0625), every profile and network", r.stdout)
        self.assertIn("| variant | method | nodes | seeds | fix-profile, 1gbe |", r.stdout)
        glance = r.stdout.split("at a glance: speed-up over 4-node dense")[1].split("###")[0]
        self.assertIn(f"| tf-4node-partial | sparse+partial | 4 | 2 | {line.split(' | ')[5]} |", glance)
        self.assertIn("| tf-4node-sparse | sparse | 4 | 1 | not reached |", glance)
        self.assertIn("at a glance: speed-up over 1 node (`tf-1node-dense`) at x1.25", r.stdout)
        # the default: CE at claim 3's x1.05; BLEU none; --glance 0 none
        plain = env.run_script(args[:args.index("--glance")] + args[args.index("--glance") + 2:])
        self.assertIn("at a glance: speed-up over 4-node dense (`tf-4node-dense`) at x1.05", plain.stdout)
        self.assertNotIn("at a glance", env.run_script(args + ["--glance", "0"]).stdout)
        self.assertNotIn("at a glance", env.run_script(args[:args.index("--glance")] + ["--metric", "bleu"]).stdout)
        self.assertIn("network model: PAPER.md's ring model", r.stdout)
        # the fixture's SEL rows name no clock: wall seconds, so the measured SEL is an upper bound
        self.assertIn("SEL(t) of sparse, sparse+partial comes from logs whose compress_s / decompress_s "
                      "are wall seconds", r.stdout)
        # selection free: partial 0.05 + 0.0008 + 0.00045 = 0.05125 s per step, so at x1.25
        # 14.776875 / (182.8125 * 0.05125) = 1.5772x over dense; the note has no place there
        free = env.run_script(args + ["--no-selection-cost", "--tag=-free"])
        self.assertEqual(free.returncode, 0, free.stderr)
        self.assertNotIn("wall seconds", free.stdout)
        self.assertIn("fix, selection free, 1gbe", free.stdout)
        fline = next(x for x in free.stdout.splitlines() if x.startswith("| tf-4node-partial")
                     and "reference not reached" in x)
        self.assertIn(f"| {T_DENSE / (182.8125 * 0.05125):.2f}x [", fline)
        self.assertTrue(os.path.exists(self.work + "/o/speedup-vs-target-dev-ce-free.md"))
        # with a measured link (eta 0.5: every bandwidth second doubles) dense, whose time has
        # more communication, slows more than partial: the speed-up over dense grows
        terms = self.work + "/validation.json"
        with open(terms, "w") as f:
            f.write('{"model": {"eta": 0.5, "overhead_s": 0.0}}')
        m = env.run_script(args[:-1] + [terms])
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertIn("eta 0.500, per-hop overhead 0 us", m.stdout)
        mline = next(x for x in m.stdout.splitlines() if x.startswith("| tf-4node-partial")
                     and "reference not reached" in x)
        got = float(mline.split("| ")[6].split("x")[0])
        self.assertGreater(got, S_C + 0.005)
        bad = env.run_script(args[:-1] + [self.work + "/none.json"])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--link-terms", bad.stderr)
        bad = env.run_script(["scripts/analyze.py", "speedup-vs-target", self.root, "--no-plot",
                              "--only", "("])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("not a regular expression", bad.stderr)


if __name__ == "__main__":
    env.main()
