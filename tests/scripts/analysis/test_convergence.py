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


if __name__ == "__main__":
    env.main()
