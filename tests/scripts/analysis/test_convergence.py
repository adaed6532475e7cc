#!/usr/bin/env python3
"""slanalysis.convergence and `analyze.py convergence`: 4-node dense at S vs 2S, on
make_target_fixtures.py's runs: S = 300 (final dev CE 3.0 and 3.5, test BLEU 40 - 10 x best
dev CE = 10 and 5), 2S = 600 (final dev CE 3.2, test BLEU 8)."""
import analysis_env as env
import make_target_fixtures
from slanalysis.convergence import BudgetCheck, final_ce, find_long_run, test_bleu
from slanalysis.references import variant_references
from slanalysis.variants import group_variants


class Convergence(env.Case):
    def setUp(self):
        super().setUp()
        self.root = make_target_fixtures.write(self.work)
        self.variants = group_variants(env.experiments(self.root))["transformer"]
        self.short, _ = variant_references(self.variants)
        self.long = find_long_run(self.short, self.variants)

    def test_check(self):
        self.assertEqual(self.long.name, "tf-4node-dense-2xS")
        self.close(final_ce(self.short), 3.25)       # (3.0 + 3.5) / 2
        self.close(test_bleu(self.short), 7.5)       # (10 + 5) / 2
        c = BudgetCheck(self.short, self.long)
        # dev CE (3.2 - 3.25) / 3.25 = -1.54% (|.| <= 2%); test BLEU 8 - 7.5 = +0.50 (<= 1.0)
        self.close(c.ce_rel, -0.05 / 3.25)
        self.close(c.bleu_diff, 0.5)
        self.assertEqual(c.status, "converged")
        lines = c.lines("transformer")
        self.assertEqual(lines[0], "transformer: 4-node dense at S = 300 (`tf-4node-dense`, 2 seed(s)) "
                                   "vs 2S = 600 (`tf-4node-dense-2xS`, 1 seed(s))")
        self.assertEqual(lines[1], "  final dev CE 3.2500 -> 3.2000 (-1.54%; limit 2%): within")
        self.assertEqual(lines[2], "  test BLEU    7.50 -> 8.00 (+0.50; limit 1): within")
        # a 1% limit: -1.54% is outside
        c = BudgetCheck(self.short, self.long, ce_tol=0.01)
        self.assertEqual((c.status, c.ce_ok, c.bleu_ok), ("not converged", False, True))

    def test_cannot_tell(self):
        self.assertEqual(BudgetCheck(self.short, None).why, "no `tf-4node-dense-2xS` run")
        c = BudgetCheck(self.short, self.short)
        self.assertEqual((c.status, c.why), ("cannot tell", "`tf-4node-dense` has 300 updates, not 2 x 300"))

    def test_command(self):
        r = env.run_script(["scripts/analyze.py", "convergence", self.root])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("-> S is enough (converged)", r.stdout)
        r = env.run_script(["scripts/analyze.py", "convergence", self.root, "--ce-tol", "0.01"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("(-1.54%; limit 1%): NOT within", r.stdout)
        r = env.run_script(["scripts/analyze.py", "convergence", self.root, "--long", "nope"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot tell: no `nope` run", r.stdout)
        r = env.run_script(["scripts/analyze.py", "convergence", self.root, "--model", "rnn"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("no 4-node dense variant", r.stderr)


class BudgetLadder(env.Case):
    """v3's budget runs `<model>-4node-dense-S<N>`: every S vs 2S pair, and the first that meets
    the rule. S100 / S200 / S400 / S800 end at dev CE 4.0 / 3.5 / 3.45 / 3.44 (test BLEU
    40 - 10 x best dev CE = 0 / 5 / 5.5 / 5.6): 100 -> 200 is -12.5% (not within), 200 -> 400
    -1.43% and +0.5 BLEU (within: S = 200), 400 -> 800 -0.29%; S1600 is still running."""

    def setUp(self):
        super().setUp()
        from make_vclock_fixtures import write_runs
        dense = (0.1, 2e6, 12, 0.0)
        runs = {f"tf-4node-dense-S{n}-s1": (4, "dense", n) + dense + ({n // 2: 5.0, n: ce}, 1)
                for n, ce in ((100, 4.0), (200, 3.5), (400, 3.45), (800, 3.44))}
        runs["tf-4node-dense-S1600-s1"] = (4, "dense", 1600) + dense + ({800: 3.6, 1600: 3.3}, 1)
        self.root = write_runs(self.work, "ladder", runs)
        import json
        import os
        p = os.path.join(self.root, "tf-4node-dense-S1600-s1", "summary.json")
        with open(p) as f:
            summary = json.load(f)
        summary["status"] = "running"
        with open(p, "w") as f:
            json.dump(summary, f)

    def test_pairs_and_first(self):
        from slanalysis.convergence import budget_ladder
        variants = group_variants(env.experiments(self.root))["transformer"]
        pairs = budget_ladder(variants)
        self.assertEqual([(s.steps, l.name) for s, l in pairs],
                         [(100, "tf-4node-dense-S200"), (200, "tf-4node-dense-S400"),
                          (400, "tf-4node-dense-S800"), (800, "tf-4node-dense-S1600")])
        checks = [BudgetCheck(s, l) for s, l in pairs]
        self.assertEqual([c.status for c in checks],
                         ["not converged", "converged", "converged", "cannot tell"])
        self.close(checks[1].ce_rel, -0.05 / 3.5)
        self.close(checks[1].bleu_diff, 0.5)
        self.assertEqual(checks[3].why, "not finished: `tf-4node-dense-S1600`")
        self.assertEqual(checks[0].lines("t")[-1], "  -> S is NOT enough")
        self.assertIn("2S = 1600 (`tf-4node-dense-S1600`, 1 seed(s), running", checks[3].lines("t")[0])

    def test_worse_at_2S(self):
        """S800 -> a finished S1600 ending at dev CE 3.6 (+4.65%) and test BLEU 40 - 36 = 4.0
        (-1.6): outside both limits and worse in both."""
        from make_vclock_fixtures import write_runs
        write_runs(self.work, "ladder", {"tf-4node-dense-S1600-s1": (4, "dense", 1600, 0.1, 2e6, 12, 0.0,
                                                                      {800: 3.7, 1600: 3.6}, 1)})
        variants = group_variants(env.experiments(self.root))["transformer"]
        from slanalysis.convergence import budget_ladder
        c = BudgetCheck(*budget_ladder(variants)[3])
        self.close(c.ce_rel, 0.16 / 3.44)
        self.assertEqual(c.lines("t")[-1],
                         "  -> outside the limits, and 2S ends WORSE than S (more updates hurt here: overfitting, "
                         "or a schedule that does not suit the longer run; compare their training losses)")

    def test_v31_recheck_is_its_own_ladder(self):
        """`...-4node-dense-lr0.002-S<N>` pairs only with its own lr: S400 at lr 0.002 ends at
        3.3, S800 at 3.2 (-3.03%: does not meet the rule); never paired with phase 2's S800."""
        from make_vclock_fixtures import write_runs
        dense = (0.1, 2e6, 12, 0.0)
        write_runs(self.work, "ladder", {
            f"tf-4node-dense-lr0.002-S{n}-s1": (4, "dense", n) + dense + ({n // 2: 5.0, n: ce}, 1)
            for n, ce in ((400, 3.3), (800, 3.2))})
        from slanalysis.convergence import budget_ladder
        variants = group_variants(env.experiments(self.root))["transformer"]
        pairs = [(s.name, l.name) for s, l in budget_ladder(variants)]
        self.assertEqual(pairs[-1], ("tf-4node-dense-lr0.002-S400", "tf-4node-dense-lr0.002-S800"))
        self.assertEqual(len(pairs), 5)
        r = env.run_script(["scripts/analyze.py", "convergence", self.root])
        self.assertIn("transformer at lr 0.002 (v3.1 re-check): S = 400 does not meet the rule",
                      r.stdout)
        self.assertIn("(-3.03%; limit 2%): NOT within", r.stdout)
        self.assertIn("transformer: S = 200 is the first that meets the rule", r.stdout)

    def test_a_recheck_plan_json_asks_for_is_pending_until_its_runs_exist(self):
        import json
        import os
        os.makedirs(os.path.join(self.root, "transformer"))
        plan = {"budget": {"S": 200}, "lr_at_S": {"4node-dense": {"chosen_lr": 0.001}}}
        path = os.path.join(self.root, "transformer", "plan.json")

        def line():
            with open(path, "w") as f:
                json.dump(plan, f)
            r = env.run_script(["scripts/analyze.py", "convergence", self.root])
            return [x for x in r.stdout.splitlines() if "re-check" in x]
        self.assertEqual(line(), ["transformer at lr 0.001 (v3.1 re-check): S = 200 vs 2S = 400: "
                                  "pending: its 2S run has not finished"])
        plan["budget_at_lr_at_S"] = {"status": "not run: 2S exceeds the cap"}
        self.assertEqual(line(), ["transformer at lr 0.001 (v3.1 re-check): S = 200 vs 2S = 400: "
                                  "not run: 2S exceeds the cap"])
        plan["budget_at_lr_at_S"] = {"status": "met"}   # decided: nothing pending
        self.assertEqual(line(), [])

    def test_command(self):
        r = env.run_script(["scripts/analyze.py", "convergence", self.root])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("transformer: S = 200 is the first that meets the rule", r.stdout)
        self.assertIn("(-12.50%; limit 2%): NOT within", r.stdout)
        r = env.run_script(["scripts/analyze.py", "convergence", self.root, "--ce-tol", "0.001"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("transformer: no S vs 2S pair meets the rule (yet)", r.stdout)


if __name__ == "__main__":
    env.main()
