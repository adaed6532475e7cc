#!/usr/bin/env python3
"""analyze.py v3-status on a hand-made suite: the lr table marks the chosen lr, an edge choice
reads as extending (or, chosen, as not bracketed), an unstarted method as not finished; the budget rows and the run counts
come from plan.json, the suite file and the summaries."""
import json
import os

import analysis_env as env


def dump(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f)


class V3Status(env.Case):
    def test_table(self):
        res, suites = os.path.join(self.work, "res"), os.path.join(self.work, "suites")
        dump(os.path.join(res, "tf", "plan.json"), {
            "lr": {"4node-dense": {"final_dev_ce": {"0.001": 3.5, "0.002": 3.1}, "chosen_lr": None},
                   "4node-sparse": {"final_dev_ce": {"0.001": 3.9, "0.002": 3.7, "0.004": 3.8},
                                    "chosen_lr": 0.002},
                   "4node-demo": {"final_dev_ce": {}, "chosen_lr": None},
                   # chosen at the top of its grid, where the range's limit stopped extending
                   "4node-fedavg": {"final_dev_ce": {"0.001": 3.9, "0.002": 3.7},
                                    "chosen_lr": 0.002}},
            "budget": {"runs": {"6000": {"final_dev_ce": 2.5, "test_bleu": 30.0},
                                "3000": {"final_dev_ce": 2.7, "test_bleu": 28.25}},
                       "S": None, "status": "running", "cap": 48000},
            # v3.1: phase 1b, one cell chosen, one with a grid point still running
            "lr_at_S": {"4node-dense": {"final_dev_ce": {"0.004": 1.559, "0.002": 1.6612,
                                                         "0.008": 1.8365}, "chosen_lr": 0.004,
                                        "running": False},
                        "4node-sparse": {"final_dev_ce": {"0.002": 1.7211}, "chosen_lr": None,
                                         "running": True}},
            "budget_at_lr_at_S": {"lr": 0.004, "S": 24000, "status": "running",
                                  "runs": {"24000": {"final_dev_ce": 1.559, "test_bleu": 41.69}}}})
        dump(os.path.join(suites, "tf.json"),
             {"experiments": [{"name": "tf-a"}, {"name": "tf-b"}, {"name": "tf-c"}]})
        dump(os.path.join(res, "tf", "tf-a", "summary.json"), {"status": "complete"})
        dump(os.path.join(res, "tf", "tf-b", "summary.json"), {"status": "running"})
        out = os.path.join(self.work, "status.md")
        r = env.run_script(["scripts/analyze.py", "v3-status", res, "--suites", suites,
                            "--out", out, "--no-refresh"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| method | 0.001 | 0.002 | 0.004 | chosen lr |", r.stdout)
        self.assertIn("| 4node-sparse | 3.900 | **3.700** | 3.800 | 0.002 |", r.stdout)
        self.assertIn("| 4node-dense | 3.500 | 3.100 |  | extending past the edge |", r.stdout)
        self.assertIn("| 4node-demo |  |  |  | grid not finished |", r.stdout)
        self.assertIn("| 4node-fedavg | 3.900 | **3.700** |  | 0.002 (at the edge of its allowed "
                      "range: not bracketed) |", r.stdout)
        self.assertIn("| 3000 | 2.7000 | 28.25 |", r.stdout)
        self.assertLess(r.stdout.index("| 3000 |"), r.stdout.index("| 6000 |"))
        self.assertIn("Runs in the suite so far: 3; finished 1, started and unfinished 1", r.stdout)
        retune = r.stdout[r.stdout.index("Learning rate re-tuned at S"):]
        self.assertIn("| 4node-dense | 1.661 | **1.559** | 1.837 | 0.004 |", retune)
        self.assertIn("| 4node-sparse | 1.721 |  |  | grid not finished |", retune)
        self.assertIn("Budget rule re-checked at 4-node dense's lr at S (0.004, S = 24000 against "
                      "2S): running (24000 updates: 1.5590 dev CE, 41.69 BLEU).", retune)
        with open(out) as f:
            self.assertEqual(f.read(), r.stdout)
        bad = env.run_script(["scripts/analyze.py", "v3-status", self.work + "/none"])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("plan.json", bad.stderr)

    def test_refresh_recomputes_in_memory(self):
        # a stale plan.json says 4node-dense chose 0.002; no run exists, so the driver's own
        # decide() (run in memory) has every method's grid unfinished, 10 methods x 4 lrs
        # queued, and nothing on disk changes
        res, suites = os.path.join(self.work, "res"), os.path.join(self.work, "suites")
        plan = os.path.join(res, "transformer", "plan.json")
        dump(plan, {"lr": {"4node-dense": {"final_dev_ce": {"0.002": 3.0}, "chosen_lr": 0.002}}})
        os.makedirs(suites)
        with open(plan) as f:
            before = f.read()
        r = env.run_script(["scripts/analyze.py", "v3-status", res, "--suites", suites])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| 4node-dense | grid not finished |", r.stdout)
        self.assertIn("Runs in the suite so far: 40; finished 0", r.stdout)
        with open(plan) as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(os.listdir(suites), [])

    def test_budget_runs(self):
        """budget_figure's inputs without matplotlib: the runs plan.json names (phase 2's at
        phase 1's lr, then the re-check's, each by S), and a run's finite validations."""
        from slanalysis import budget_figure
        plan = {"budget": {"runs": {"6000": {}, "3000": {}}},
                "lr": {"4node-dense": {"chosen_lr": 0.008}},
                "budget_at_lr_at_S": {"lr": 0.004, "runs": {
                    "12000": {"run": "m-4node-dense-lr0.004-S12000-s1"},
                    "6000": {"run": "m-4node-dense-lr0.004-S6000-s1"}, "24000": {}}}}
        self.assertEqual(budget_figure.budget_runs(plan, "m"), [
            (3000, "m-4node-dense-S3000-s1", 0.008, False),
            (6000, "m-4node-dense-S6000-s1", 0.008, False),
            (6000, "m-4node-dense-lr0.004-S6000-s1", 0.004, True),
            (12000, "m-4node-dense-lr0.004-S12000-s1", 0.004, True)])
        self.assertEqual(budget_figure.budget_runs({}, "m"), [])
        res = os.path.join(self.work, "res")
        os.makedirs(os.path.join(res, "m", "r"))
        with open(os.path.join(res, "m", "r", "valid.jsonl"), "w") as f:
            f.write('{"step": 100, "dev_ce": 3.5, "bleu": 10.0}\n{"step": 200, "dev_ce": NaN}\n'
                    '{"step": 300, "dev_ce": 2.5, "bleu": null}\n')
        self.assertEqual(budget_figure.curve(res, "m", "r", "dev_ce"), [(100, 3.5), (300, 2.5)])
        self.assertEqual(budget_figure.curve(res, "m", "r", "bleu"), [(100, 10.0)])
        self.assertEqual(budget_figure.curve(res, "m", "absent", "bleu"), [])

    def test_remaining_estimate(self):
        """Phase 1b, the budget re-check and phases 3-4 still to run, at the budget runs' pace: the 4-node S3000 run logged
        wall_s 300 at update 3000 (0.1 s per update). Left: a 4-node run of 6000 updates
        with 1000 done (5000 x 4/4 x 0.1 = 500 s) and a 1-node run of 24000 (24000 x 1/4 x 0.1
        = 600 s): 1100 s = 0.31 h (one decimal below 10 h). Then the 4-node run's cell gets
        finished seeds (s2: 1200 s for 6000 updates, s3: 1800 s: median 0.25 s per update; an
        unfinished s4 and another cell, -lr0.002-s1, do not count): 5000 x 0.25 + 600 = 1850 s
        = 0.51 h."""
        from slanalysis.commands import v3_status
        res = os.path.join(self.work, "res")
        for name, rows in (("m-4node-dense-S3000-s1", [{"step": 3000, "wall_s": 300.0}]),
                           ("m-4node-x-S6000-s1", [{"step": 1000, "wall_s": 1.0}])):
            os.makedirs(os.path.join(res, "m", name))
            with open(os.path.join(res, "m", name, "log.jsonl"), "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in rows))

        class Suite:
            plan = {"budget": {"runs": {"3000": {}}, "S": None, "status": "running"}}

        class Driver:
            CELLS = {"4node-x": ("4node-x", 1)}
            X = {"name": "m-4node-x-S6000-s1", "nodes": 4, "set": ["train.max_steps=6000"]}

            def phase_lr(self, suite):
                return {"4node-x": 0.004}, []

            def phase_lr_at_S(self, suite, lrs, S):
                assert S == 3000
                return {}, [self.X]               # phase 1b still tuning

            def phase_budget_at_lr(self, suite, lrs, lrS, S):
                return []

            def phase_main(self, suite, lrs, lrS, S):
                assert lrS == {"4node-x": 0.002}  # counted at half its phase-1 lr meanwhile
                return [self.X]                   # the same run twice is counted once

            def phase_scaling(self, suite, lrs, lrS, S):
                return [{"name": "m-1node-y", "nodes": 1, "set": ["a=b", "train.max_steps=24000"]}]

        lines = v3_status.remaining_lines(Driver(), Suite(), res, "m")
        self.close(v3_status.wall_per_update(res, "m", Suite.plan), 0.1)
        self.assertEqual(lines[0], "Still to run if S = 3000 (the S its running 2S run tests): 2 "
                                   "runs (phase 1b as decided so far, the budget re-check, phases "
                                   "3-4), ~0.3 h on one core: 0 at the pace of their cell's "
                                   "finished seeds, the others at the budget runs' 0.100 s per "
                                   "4-node update (validation included; rough).")
        for name, summary in (("m-4node-x-S6000-s2", {"status": "complete", "wall_s": 1200.0, "steps": 6000}),
                              ("m-4node-x-S6000-s3", {"status": "complete", "wall_s": 1800.0, "steps": 6000}),
                              ("m-4node-x-S6000-s4", {"status": "incomplete", "wall_s": 9.0, "steps": 6000}),
                              ("m-4node-x-S6000-lr0.002-s1", {"status": "complete", "wall_s": 9.0, "steps": 6000})):
            os.makedirs(os.path.join(res, "m", name))
            with open(os.path.join(res, "m", name, "summary.json"), "w") as f:
                json.dump(summary, f)
        self.close(v3_status.cell_pace(res, "m", "m-4node-x-S6000-s1"), 0.25)
        self.assertIsNone(v3_status.cell_pace(res, "m", "m-1node-y"))
        lines = v3_status.remaining_lines(Driver(), Suite(), res, "m")
        self.assertEqual(lines[0], "Still to run if S = 3000 (the S its running 2S run tests): 2 "
                                   "runs (phase 1b as decided so far, the budget re-check, phases "
                                   "3-4), ~0.5 h on one core: 1 at the pace of their cell's "
                                   "finished seeds, the others at the budget runs' 0.100 s per "
                                   "4-node update (validation included; rough).")
        Suite.plan["budget"]["status"] = "capped"  # S unknown and nothing running: no line
        self.assertEqual(v3_status.remaining_lines(Driver(), Suite(), res, "m"), [])


if __name__ == "__main__":
    env.main()
