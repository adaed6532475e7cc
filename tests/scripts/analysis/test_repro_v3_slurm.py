#!/usr/bin/env python3
"""scripts/repro_v3.py --launcher slurm with stand-in `sbatch` and `squeue` on PATH (the real
submission script, scripts/slurm/submit-suite.sh, is what the driver calls; a real local Slurm
is tested by scripts/test-slurm.sh). The stand-in sbatch "runs" each job at once with the
driver test's stand-in numbers (repro_v3_standin.result), unless the
experiment is named in $FAKE_SLURM_FAIL; squeue lists the ids in $FAKE_SLURM_QUEUE's file."""
import json
import os
import subprocess
import sys

import analysis_env as env

DRIVER = os.path.join(env.REPO, "scripts", "repro_v3.py")

SBATCH = r'''#!/usr/bin/env python3
import json, os, sys
sys.path.insert(0, HERE)
from repro_v3_standin import result
a = sys.argv[1:]
i = next(k for k, x in enumerate(a) if x.endswith("train.sbatch"))
rest = a[i + 2:]
sets = dict(rest[k + 1].split("=", 1) for k in range(0, len(rest), 2) if rest[k] == "--set")
out = os.environ["SL_OUTPUT_DIR"]
name = os.path.basename(out)
state = os.environ["FAKE_SLURM_STATE"]
n = len(open(state).read().splitlines()) + 1 if os.path.exists(state) else 1
with open(state, "a") as f:
    f.write(f"{name} {' '.join(f'{k}={v}' for k, v in sets.items())} "
            f"SL_RESUME={os.environ.get('SL_RESUME')}\n")
if name not in os.environ.get("FAKE_SLURM_FAIL", "").split(","):
    lr, steps = float(sets["train.lr"]), int(sets["train.max_steps"])
    ce, bleu = result(name, lr, steps)
    with open(os.path.join(out, "valid.jsonl"), "w") as f:
        f.write(json.dumps({"step": steps, "dev_ce": ce}) + "\n")
    s = {"status": "complete", "steps": steps}
    if bleu is not None:
        s["test_bleu"] = bleu
    json.dump(s, open(os.path.join(out, "summary.json"), "w"))
print(f"{1000 + n};cluster")
'''

SQUEUE = r'''#!/usr/bin/env python3
import os
q = os.environ.get("FAKE_SLURM_QUEUE")
if q and os.path.exists(q):
    print(open(q).read(), end="")
'''


class SlurmLauncher(env.Case):
    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.work, "bin")
        os.makedirs(self.bin)
        here = repr(os.path.dirname(os.path.abspath(__file__)))
        for name, text in (("sbatch", SBATCH.replace("HERE", here, 1)), ("squeue", SQUEUE)):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.res = os.path.join(self.work, "results")
        self.cfg = os.path.join(self.work, "configs")
        os.makedirs(self.cfg)
        # the suite's base config must exist for submit-suite.sh to accept the entries
        with open(os.path.join(self.cfg, "transformer-model.json"), "w") as f:
            json.dump({"model": {"type": "transformer"}}, f)
        self.state = os.path.join(self.work, "submitted")

    def run_driver(self, *args, **extra_env):
        e = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                 FAKE_SLURM_STATE=self.state, SL_REPRO_V3_BUSY_WAIT_S="0.05", **extra_env)
        return subprocess.run([sys.executable, DRIVER, "transformer", "--launcher", "slurm",
                               "--bin", sys.executable, "--results", self.res, "--config-dir",
                               self.cfg, *args], capture_output=True, text=True, env=e,
                              timeout=300)

    def submitted(self):
        with open(self.state) as f:
            return [x.split()[0] for x in f.read().splitlines()]

    def test_runs_the_rules_as_jobs(self):
        """The lr sweep and the budget as Slurm jobs, each experiment once; the extra setting
        reaches every job; the job table names each job."""
        p = self.run_driver("--until", "budget", "--slurm-set", "device=cuda")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout[-1500:])
        self.assertIn("repro_v3: transformer: done up to phase budget", p.stdout)
        names = self.submitted()
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(len([n for n in names if "-lr-" in n]), 30 + 4 + 4 + 7)
        self.assertEqual([n for n in names if "4node-dense-S" in n],
                         ["transformer-4node-dense-S3000-s1", "transformer-4node-dense-S6000-s1",
                          "transformer-4node-dense-S12000-s1"])
        with open(self.state) as f:
            lines = f.read().splitlines()
        self.assertTrue(all("device=cuda" in x and x.endswith("SL_RESUME=always") for x in lines))
        with open(os.path.join(self.res, "transformer", ".slurm-jobs.json")) as f:
            jobs = json.load(f)
        self.assertEqual(jobs["transformer-4node-dense-S3000-s1"], [str(1000 + 1 + names.index(
            "transformer-4node-dense-S3000-s1"))])
        with open(os.path.join(self.res, "transformer", "plan.json")) as f:
            plan = json.load(f)
        self.assertEqual((plan["budget"]["S"], plan["budget"]["status"]), (6000, "met"))

    def test_a_queued_job_is_not_submitted_again(self):
        """An experiment whose job is still in the queue is left alone; once it is out (and
        its results are in) the driver goes on."""
        held = "transformer-lr-4node-dense-lr0.001"
        os.makedirs(os.path.join(self.res, "transformer", held))
        with open(os.path.join(self.res, "transformer", ".slurm-jobs.json"), "w") as f:
            json.dump({held: ["777"]}, f)
        queue = os.path.join(self.work, "queue")
        with open(queue, "w") as f:
            f.write("777\n")
        e = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                 FAKE_SLURM_STATE=self.state, SL_REPRO_V3_BUSY_WAIT_S="0.05",
                 FAKE_SLURM_QUEUE=queue)
        proc = subprocess.Popen([sys.executable, DRIVER, "transformer", "--launcher", "slurm",
                                 "--bin", sys.executable, "--results", self.res, "--config-dir",
                                 self.cfg, "--until", "lr"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, env=e)
        out = ""
        for line in proc.stdout:
            out += line
            if "queued or running" in line:
                break
        self.assertNotIn(held, self.submitted())
        # "job 777 ends": its results are there and the queue is empty
        d = os.path.join(self.res, "transformer", held)
        with open(os.path.join(d, "valid.jsonl"), "w") as f:
            f.write(json.dumps({"step": 1500, "dev_ce": 2.2}) + "\n")
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump({"status": "complete", "steps": 1500}, f)
        os.unlink(queue)
        out += proc.stdout.read()
        self.assertEqual(proc.wait(timeout=120), 0, out[-1500:])
        proc.stdout.close()
        self.assertNotIn(held, self.submitted())
        self.assertIn("done up to phase lr", out)

    def test_a_job_that_keeps_failing_stops_the_driver(self):
        bad = "transformer-lr-4node-sparse-lr0.002"
        p = self.run_driver("--until", "lr", FAKE_SLURM_FAIL=bad)
        self.assertEqual(p.returncode, 1, p.stdout[-1500:])
        self.assertEqual(self.submitted().count(bad), 3)
        self.assertIn(f"repro_v3: {bad}: 3 Slurm jobs ended without finishing it; see "
                      f"{os.path.join(self.res, 'transformer', 'slurm', bad)}-", p.stderr)

    def test_resumes_records_at_once_and_a_local_driver_keeps_off(self):
        """Every job is submitted with SL_RESUME=always (a retry after an early crash starts
        again); the table is written after each job; a local driver refuses a model with jobs
        still queued."""
        p = self.run_driver("--until", "lr")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.res, "transformer", ".slurm-jobs.json")) as f:
            jobs = json.load(f)
        self.assertEqual(len(jobs), len(self.submitted()))
        queue = os.path.join(self.work, "queue")
        with open(queue, "w") as f:
            f.write(jobs["transformer-lr-4node-dense-lr0.001"][0] + "\n")
        e = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                 FAKE_SLURM_QUEUE=queue)
        local = subprocess.run([sys.executable, DRIVER, "transformer", "--bin", sys.executable,
                                "--results", self.res, "--config-dir", self.cfg],
                               capture_output=True, text=True, env=e, timeout=120)
        self.assertEqual(local.returncode, 2, local.stdout[-500:])
        self.assertIn("1 experiment(s) of this model are in the Slurm queue "
                      "(transformer-lr-4node-dense-lr0.001;", local.stderr)

    def test_two_drivers_submit_each_experiment_once(self):
        """Two Slurm drivers of one model at once: the job table is read, decided on and
        written under the model lock, so no experiment gets two jobs."""
        e = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                 FAKE_SLURM_STATE=self.state, SL_REPRO_V3_BUSY_WAIT_S="0.05")
        cmd = [sys.executable, DRIVER, "transformer", "--launcher", "slurm", "--bin",
               sys.executable, "--results", self.res, "--config-dir", self.cfg, "--until", "lr"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, env=e) for _ in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        names = self.submitted()
        self.assertEqual(len(names), 45)
        self.assertEqual(len(set(names)), 45)

    def test_no_squeue(self):
        """Slurm's commands missing: one line, exit 2."""
        os.unlink(os.path.join(self.bin, "squeue"))
        os.makedirs(os.path.join(self.res, "transformer"))
        with open(os.path.join(self.res, "transformer", ".slurm-jobs.json"), "w") as f:
            json.dump({"x": ["1"]}, f)
        e = dict(os.environ, PATH=self.bin, FAKE_SLURM_STATE=self.state)  # no squeue on it
        p = subprocess.run([sys.executable, DRIVER, "transformer", "--launcher", "slurm",
                            "--results", self.res, "--config-dir", self.cfg],
                           capture_output=True, text=True, env=e, timeout=120)
        self.assertEqual(p.returncode, 2, p.stdout[-1000:])
        self.assertIn("squeue not found", p.stderr)
        self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    env.main()
