#!/usr/bin/env python3
"""scripts/repro_v3_stage.py in a scratch git checkout: a complete run is compressed and staged
with its numbers printed, an unfinished one is left as it is, checkpoints stay out (the
repository's .gitignore), plan.json and the suite record are staged, and a second call finds
nothing new."""
import gzip
import json
import os
import shutil
import subprocess

import analysis_env as env

SCRIPT = os.path.join(env.REPO, "scripts", "repro_v3_stage.py")


class Stage(env.Case):
    def git(self, *args):
        # an identity of its own: CI's root has no git config to commit with
        return subprocess.run(["git", "-C", self.repo, "-c", "user.name=test", "-c",
                               "user.email=test@example.invalid", *args], capture_output=True,
                              text=True, check=True).stdout

    def setUp(self):
        super().setUp()
        self.repo = os.path.join(self.work, "repo")
        os.makedirs(self.repo)
        self.git("init", "-q")
        shutil.copy(os.path.join(env.REPO, ".gitignore"), self.repo)
        m = os.path.join(self.repo, "results", "repro-v3", "m")
        for run, status in (("m-4node-dense-S3000-s1", "complete"),
                            ("m-4node-sparse-S3000-s1", "incomplete")):
            d = os.path.join(m, run)
            os.makedirs(os.path.join(d, "checkpoints", "step-00000500"))
            with open(os.path.join(d, "checkpoints", "step-00000500", "model.ckpt"), "w") as f:
                f.write("weights")
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump({"status": status, "test_bleu": 12.345}, f)
            with open(os.path.join(d, "log.jsonl"), "w") as f:
                f.write('{"step": 100, "train_loss": 3.0}\n')
            with open(os.path.join(d, "valid.jsonl"), "w") as f:
                f.write('{"step": 100, "dev_ce": 2.5}\n{"step": 200, "dev_ce": 2.25, "bleu": 9.0}\n')
        with open(os.path.join(m, "plan.json"), "w") as f:
            json.dump({"budget": {}}, f)
        os.makedirs(os.path.join(self.repo, "configs", "repro-v3"))
        with open(os.path.join(self.repo, "configs", "repro-v3", "m.json"), "w") as f:
            json.dump({"experiments": []}, f)

    def stage(self):
        r = subprocess.run(["python3", SCRIPT], cwd=os.path.join(self.repo, "results"),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_stage(self):
        out = self.stage()
        # the complete run's final dev CE is its last validation's (2.25)
        self.assertIn("staged results/repro-v3/m/m-4node-dense-S3000-s1: final dev CE 2.2500, "
                      "test BLEU 12.35", out)
        self.assertNotIn("sparse", out)
        self.assertEqual(sorted(self.git("diff", "--cached", "--name-only").split()), [
            "configs/repro-v3/m.json",
            "results/repro-v3/m/m-4node-dense-S3000-s1/log.jsonl.gz",
            "results/repro-v3/m/m-4node-dense-S3000-s1/summary.json",
            "results/repro-v3/m/m-4node-dense-S3000-s1/valid.jsonl.gz",
            "results/repro-v3/m/plan.json"])
        done = os.path.join(self.repo, "results", "repro-v3", "m", "m-4node-dense-S3000-s1")
        with gzip.open(os.path.join(done, "log.jsonl.gz"), "rt") as f:
            self.assertEqual(f.read(), '{"step": 100, "train_loss": 3.0}\n')
        running = os.path.join(self.repo, "results", "repro-v3", "m", "m-4node-sparse-S3000-s1")
        self.assertTrue(os.path.isfile(os.path.join(running, "log.jsonl")))   # not compressed
        self.git("commit", "-q", "-m", "runs")
        self.assertIn("no newly finished run to stage", self.stage())
        self.assertEqual(self.git("diff", "--cached", "--name-only"), "")

    def test_not_a_results_folder(self):
        r = subprocess.run(["python3", SCRIPT, "results/nothing-here"], cwd=self.repo,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("results/nothing-here: not a folder", r.stderr)


if __name__ == "__main__":
    env.main()
