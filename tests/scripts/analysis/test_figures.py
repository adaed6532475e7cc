#!/usr/bin/env python3
"""The figure modules (curves, map_figure, target_figure, lr_figure, budget_figure,
scaling_figure) through
their commands, under an interpreter with matplotlib (ctest passes SL_PLOT_PYTHON; exit 77 =
skip without it). The speed-up map and plot.py figures are also checked by
tests/scripts/check_vclock.py and check_plot.py; here: v3's figures (speed-up against the
target, v3-status's lr-at-S and budget figures)."""
import os
import sys

import analysis_env as env
import make_target_fixtures

PNG = b"\x89PNG\r\n\x1a\n"


class Figures(env.Case):
    def test_smooth(self):
        from slanalysis.curves import smooth
        # window 2 over 1, 2, 3, 4 padded with the first value: (1+1)/2, (1+2)/2, (2+3)/2, (3+4)/2
        self.assertEqual(list(smooth([1.0, 2.0, 3.0, 4.0], 2)), [1.0, 1.5, 2.5, 3.5])

    def png(self, path):
        self.assertTrue(os.path.isfile(path), path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), PNG, path)
        self.assertGreater(os.path.getsize(path), 5000, path)

    def test_lr_at_S_figure(self):
        """v3-status --figure: one panel per phase-1b cell with a finished point; none at all:
        no figure, no line."""
        import json
        res = os.path.join(self.work, "res")
        os.makedirs(os.path.join(res, "tf"))
        plan = {"budget": {"S": 6000, "status": "capped", "runs": {}},
                "lr": {"4node-dense": {"final_dev_ce": {"0.004": 2.8, "0.008": 2.6},
                                       "chosen_lr": 0.008},
                       "1node-dense": {"final_dev_ce": {"0.004": 3.5}, "chosen_lr": 0.004}},
                "lr_at_S": {"4node-dense": {"method": "4node-dense", "steps": 6000,
                                            "final_dev_ce": {"0.002": 1.66, "0.004": 1.56,
                                                             "0.008": 1.84}, "chosen_lr": 0.004},
                            "1node-dense-equal-tokens": {"steps": 24000,
                                                         "final_dev_ce": {"0.004": 1.76},
                                                         "chosen_lr": None}}}
        with open(os.path.join(res, "tf", "plan.json"), "w") as f:
            json.dump(plan, f)
        out = os.path.join(self.work, "fig")
        r = env.run_script(["scripts/analyze.py", "v3-status", res, "--no-refresh", "--suites",
                            self.work, "--figure", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.png(os.path.join(out, "tf-lr-at-S.png"))
        self.assertIn(f"Figure: [tf-lr-at-S.png](tf-lr-at-S.png) (in {out})", r.stdout)
        plan["lr_at_S"] = {"4node-dense": {"final_dev_ce": {}, "chosen_lr": None}}
        with open(os.path.join(res, "tf", "plan.json"), "w") as f:
            json.dump(plan, f)
        os.unlink(os.path.join(out, "tf-lr-at-S.png"))
        r = env.run_script(["scripts/analyze.py", "v3-status", res, "--no-refresh", "--suites",
                            self.work, "--figure", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "tf-lr-at-S.png")))
        self.assertNotIn("Figure:", r.stdout)

    def test_budget_figure(self):
        """v3-status --figure: <model>-budget.png from the budget runs' valid.jsonl, phase 2's
        and the re-check's; a model whose budget runs have no validation yet: none."""
        import json
        res = os.path.join(self.work, "res")
        plan = {"budget": {"S": 3000, "status": "capped", "runs": {"3000": {}, "6000": {}}},
                "lr": {"4node-dense": {"final_dev_ce": {"0.008": 2.6}, "chosen_lr": 0.008}},
                "budget_at_lr_at_S": {"lr": 0.004, "runs": {"6000": {"run": "tf-4node-dense-lr0.004-S6000-s1"}}}}
        for run, n in (("tf-4node-dense-S3000-s1", 30), ("tf-4node-dense-S6000-s1", 60),
                       ("tf-4node-dense-lr0.004-S6000-s1", 60)):
            os.makedirs(os.path.join(res, "tf", run))
            with open(os.path.join(res, "tf", run, "valid.jsonl"), "w") as f:
                for i in range(1, n + 1):
                    f.write(json.dumps({"step": 100 * i, "dev_ce": 2 + 3 / i, "bleu": 40 - 30 / i}) + "\n")
        with open(os.path.join(res, "tf", "plan.json"), "w") as f:
            json.dump(plan, f)
        os.makedirs(os.path.join(res, "rn"))
        with open(os.path.join(res, "rn", "plan.json"), "w") as f:
            json.dump({"budget": {"S": None, "runs": {"3000": {}}}}, f)   # no log yet
        out = os.path.join(self.work, "fig")
        r = env.run_script(["scripts/analyze.py", "v3-status", res, "--no-refresh", "--suites",
                            self.work, "--figure", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.png(os.path.join(out, "tf-budget.png"))
        self.assertIn(f"Figure: [tf-budget.png](tf-budget.png) (in {out})", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "rn-budget.png")))

    def test_speedup_vs_target_figures(self):
        root = make_target_fixtures.write(self.work)
        prof = env.fix_profile(self.work)
        out = os.path.join(self.work, "fig")
        r = env.run_script(["scripts/analyze.py", "speedup-vs-target", root, "--profile", prof,
                            "--factors", "1.0,1.25,1.5", "--boot", "20", "--out", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        # one figure per model x profile x preset network
        for net in ("1gbe", "10gbe", "ib100"):
            name = f"transformer-speedup-vs-target-dev-ce-fix-profile-{net}.png"
            self.png(os.path.join(out, name))
            self.assertIn(f"- [{name}]({name})", r.stdout)
        r = env.run_script(["scripts/analyze.py", "speedup-vs-target", root, "--profile", prof,
                            "--metric", "bleu", "--network", "1gbe", "--boot", "20", "--tag=-b",
                            "--only", "partial", "--out", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.png(os.path.join(out, "transformer-speedup-vs-target-dev-bleu-fix-profile-1gbe-b.png"))
        self.assertTrue(os.path.isfile(os.path.join(out, "speedup-vs-target-dev-bleu-b.md")))

    def test_scaling_figure(self):
        """scaling: <model>-scaling.png on phase 4's hand-made tree; a model without a budget S
        (rnn here: no plan.json) gets none."""
        import make_phase4_fixtures
        root = make_phase4_fixtures.write(self.work)
        out = os.path.join(self.work, "fig")
        r = env.run_script(["scripts/analyze.py", "scaling", root, "--profile",
                            env.fix_profile(self.work), "--link-terms", "paper", "--out", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.png(os.path.join(out, "transformer-scaling.png"))
        self.assertIn("- [transformer-scaling.png](transformer-scaling.png)", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "rnn-scaling.png")))


if __name__ == "__main__":
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {sys.executable} cannot import matplotlib ({e})")
        sys.exit(77)
    env.main()
