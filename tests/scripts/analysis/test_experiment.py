#!/usr/bin/env python3
"""slanalysis.experiment: one run folder read once, on make_plot_fixtures.py's runs (a
complete run, a preempted one with a torn log line, one without summary.json)."""
import analysis_env as env
from slanalysis.experiment import by_model, load_experiments
from slanalysis.notes import Notes


class Experiments(env.Case):
    def setUp(self):
        super().setUp()
        self.notes = Notes("test")
        self.exps = {e.name: e for e in load_experiments(env.plot_fixtures(self.work), self.notes)}

    def test_complete_run(self):
        e = self.exps["paper-small/tf-4node-partial"]
        self.assertEqual((e.model, e.nodes, e.method, e.steps, e.status), ("transformer", 4, "sparse+partial", 1000, "complete"))
        # dev BLEU 11, 18, 22, 24 at 250..1000: best 24 at 1000 (summary.json)
        self.assertEqual((e.best_bleu, e.best_step, e.test_bleu), (24.0, 1000, 23.1))
        self.assertEqual((e.bytes_per_step, e.parameters), (252_000.0, 1_000_000.0))
        self.assertEqual(len(e.log), 20)    # log every 50 steps up to 1000
        self.assertEqual(len(e.valid), 4)
        self.assertEqual(e.label(), "paper-small/tf-4node-partial [sparse+partial, 4n]")

    def test_incomplete_runs(self):
        e = self.exps["rnn-runs/rnn-4node-error"]
        self.assertEqual((e.status, e.reason, e.steps), ("incomplete", "preempted", 500))
        self.assertEqual(len(e.log), 10)    # 50..500; the torn 11th line is skipped
        self.assertIn("log.jsonl:11: skipped", " ".join(self.notes.lines))
        e = self.exps["rnn-runs/rnn-2node-sparse"]
        # no summary.json: steps from the last log line, bytes the mean of bytes_sent
        self.assertEqual((e.status, e.reason, e.steps), ("incomplete", "no summary.json", 300))
        self.assertEqual((e.nodes, e.method, e.bytes_per_step, e.best_bleu), (2, "sparse", 80_000.0, None))
        self.assertIn("rnn-runs/rnn-2node-sparse: no validation results", " ".join(self.notes.lines))

    def test_a_complete_run_whose_log_was_cut_is_damaged(self):
        import os
        import shutil
        from slanalysis.logfiles import DamagedLog
        root = env.plot_fixtures(self.work)
        run = os.path.join(root, "paper-small", "tf-4node-partial")
        cut = os.path.join(self.work, "cut", "tf-4node-partial")
        shutil.copytree(run, cut)
        log = os.path.join(cut, "log.jsonl")
        with open(log) as f:
            lines = f.readlines()
        # 20 lines, every 50 updates to 1000; cut after update 900 at a line boundary
        with open(log, "w") as f:
            f.writelines(lines[:18])
        with self.assertRaises(DamagedLog) as e:
            load_experiments(os.path.join(self.work, "cut"), self.notes)
        self.assertIn("ends at update 900, but summary.json says the run completed 1000 (logging "
                      "every 50)", str(e.exception))
        with open(log, "w") as f:   # up to 950: update 1000's line is missing too
            f.writelines(lines[:19])
        self.assertRaises(DamagedLog, load_experiments, os.path.join(self.work, "cut"), self.notes)
        with open(log, "w") as f:   # whole again
            f.writelines(lines)
        self.assertEqual(len(load_experiments(os.path.join(self.work, "cut"), self.notes)[0].log), 20)

    def test_by_model_order(self):
        groups = by_model(self.exps.values())
        self.assertEqual(list(groups), ["rnn", "transformer"])
        # model, nodes, method, name
        self.assertEqual([e.name for e in groups["transformer"]],
                         ["paper-small/tf-1node-dense", "paper-small/tf-4node-dense",
                          "paper-small/tf-4node-sparse", "paper-small/tf-4node-partial"])


if __name__ == "__main__":
    env.main()
