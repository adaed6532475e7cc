#!/usr/bin/env python3
"""scripts/repro_v3.py end to end with a stand-in run-experiment (fake_run_experiment below):
the driver must apply the pre-registered rules phase by phase and stop when done.

The stand-in writes, for every experiment of the suite it is given, a summary.json and a
valid.jsonl whose final dev CE is a known function of the method, lr and updates:
  sweep (1500 updates): 2 + 0.1 * (log2(lr / best))^2, best = 0.004 for every method (DeMo's
    lower grid then grows upward to it) but
    sparse-only (0.008, top of the grid -> 0.016 is run too) and 1-node dense (0.001, bottom
    -> 0.0005 is run too);
  runs of U updates at lr (budget, phase 1b, main): dev CE 2 + 400 / U + 0.01 (log2(lr / b))^2,
    b = 0.002 (the 1-node equal-tokens control: 0.0005), test BLEU 30 - 10000 / U:
    budget (4-node dense at 0.004, +0.01): 3000 -> 6000: 2.1433 -> 2.0767 (-3.1%: not met);
    6000 -> 12000: 2.0767 -> 2.0433 (-1.6%) and BLEU 28.33 -> 29.17 (+0.83): met, so S = 6000;
  phase 1b, from {phase-1 lr, half of it}: every 4-node cell goes down to 0.002 (0.001 runs
    and loses); 1-node equal updates (phase 1: 0.001) goes up: 0.002 wins, 0.004 loses; equal
    tokens: 0.0005 wins, 0.00025 loses."""
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import unittest

import analysis_env as env

DRIVER = os.path.join(env.REPO, "scripts", "repro_v3.py")

FAKE = r'''#!/usr/bin/env python3
import fcntl, json, os, re, sys
sys.path.insert(0, HERE)
from repro_v3_standin import result
a = sys.argv[1:]
suite = json.load(open(a[a.index("--suite") + 1]))
root = a[a.index("--output-root") + 1]
def held(d):  # --skip-busy: another process holds d/.lock
    try:
        fd = os.open(os.path.join(d, ".lock"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)
only = [a[i + 1] for i, x in enumerate(a) if x == "--only"]
with open(os.path.join(root, "invocations.log"), "a") as f:
    f.write(" ".join(only) + "\n")
for e in suite["experiments"]:
    if only and e["name"] not in only:
        continue
    sets = dict(s.split("=", 1) for s in e["set"])
    d = os.path.join(root, suite["name"], e["name"])
    if os.path.isfile(os.path.join(d, "summary.json")):
        continue
    if "--skip-busy" in a and held(d):
        continue
    os.makedirs(d, exist_ok=True)
    lr, steps = float(sets["train.lr"]), int(sets["train.max_steps"])
    name = e["name"]
    ce, bleu = result(name, lr, steps)
    diverge = os.environ.get("FAKE_DIVERGE")   # runs whose name matches stop non-finite
    diverged = bool(diverge) and re.search(diverge, name) is not None
    with open(os.path.join(d, "valid.jsonl"), "w") as f:
        f.write(json.dumps({"step": steps // 2, "dev_ce": ce + 1}) + "\n")
        if not diverged:
            f.write(json.dumps({"step": steps, "dev_ce": ce}) + "\n")
    s = {"status": "complete", "steps": steps, "nodes": e["nodes"]}
    if diverged:
        s = {"status": "stopped", "reason": "non-finite loss at step 7", "steps": 7}
    if bleu is not None:
        s["test_bleu"] = bleu
    json.dump(s, open(os.path.join(d, "summary.json"), "w"))
    with open(os.path.join(root, "calls.log"), "a") as f:
        f.write(e["name"] + " " + " ".join(e["set"]) + "\n")
    with open(os.path.join(root, "coretype.log"), "a") as f:
        f.write(e["name"] + " " + os.environ.get("OPENBLAS_CORETYPE", "-") + "\n")
'''


def load(path):
    with open(path) as f:
        return json.load(f)


def lines(path):
    with open(path) as f:
        return f.read().splitlines()


class Driver(env.Case):
    def fake(self):
        """The stand-in run-experiment, written into the test's folder."""
        path = os.path.join(self.work, "fake-run-experiment")
        with open(path, "w") as f:
            f.write(FAKE.replace("HERE", repr(os.path.dirname(os.path.abspath(__file__))), 1))
        os.chmod(path, 0o755)
        return path

    def test_waits_for_an_experiment_another_driver_holds(self):
        """A second driver of the same model: what another process holds (its results-directory
        lock) is skipped, and when nothing else is left the driver waits, then goes on."""
        fake = self.fake()
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg)
        held = os.path.join(res, "transformer", "transformer-lr-4node-dense-lr0.001")
        os.makedirs(held)
        fd = os.open(os.path.join(held, ".lock"), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)  # "another driver is running it"
        run = [sys.executable, DRIVER, "transformer", "--bin", fake, "--results", res,
               "--config-dir", cfg, "--until", "lr"]
        p = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ, SL_REPRO_V3_BUSY_WAIT_S="0.2"))
        out = ""
        for line in p.stdout:  # everything else of the sweep runs, then it waits for the held one
            out += line
            if "running in another process" in line:
                break
        self.assertIn("transformer-lr-4node-dense-lr0.001", line)
        self.assertFalse(os.path.exists(os.path.join(held, "summary.json")))
        os.close(fd)  # the other driver "stopped": this one runs the experiment itself
        out += p.stdout.read()
        self.assertEqual(p.wait(timeout=60), 0, out[-2000:])
        calls = [c.split()[0] for c in lines(os.path.join(res, "calls.log"))]
        self.assertEqual(calls.count("transformer-lr-4node-dense-lr0.001"), 1)
        self.assertEqual(calls[-1], "transformer-lr-4node-dense-lr0.001")  # ran last, once
        self.assertEqual(len(calls), len(set(calls)))

    def test_models_in_order(self):
        """`rnn transformer`: the RNN's suite to the end of the phase, then the Transformer's."""
        fake = self.fake()
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg)
        p = subprocess.run([sys.executable, DRIVER, "rnn", "transformer", "--bin", fake,
                            "--results", res, "--config-dir", cfg, "--until", "lr"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout[-2000:])
        models = [c.split("-")[0] for c in lines(os.path.join(res, "calls.log"))]
        first_tf = models.index("transformer")
        self.assertEqual(set(models[:first_tf]), {"rnn"})
        self.assertEqual(set(models[first_tf:]), {"transformer"})
        self.assertIn("repro_v3: rnn: done up to phase lr", p.stdout)
        self.assertIn("repro_v3: transformer: done up to phase lr", p.stdout)

    def run_driver(self, *args):
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg, exist_ok=True)
        return subprocess.run([sys.executable, DRIVER, "transformer", "--bin", self.fake(),
                               "--results", res, "--config-dir", cfg, *args],
                              capture_output=True, text=True), cfg, res

    def test_all_phases(self):
        p, cfg, res = self.run_driver()
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout[-2000:])
        plan = load(os.path.join(res, "transformer", "plan.json"))
        chosen = {m: v["chosen_lr"] for m, v in plan["lr"].items()}
        self.assertEqual(chosen["4node-dense"], 0.004)
        self.assertEqual(chosen["4node-sparse"], 0.008)       # 0.016 ran and lost
        self.assertEqual(chosen["1node-dense"], 0.001)        # 0.0005 ran and lost
        self.assertIn("0.016", plan["lr"]["4node-sparse"]["final_dev_ce"])
        self.assertIn("0.0005", plan["lr"]["1node-dense"]["final_dev_ce"])
        self.assertEqual((plan["budget"]["S"], plan["budget"]["status"]), (6000, "met"))
        # DeMo's grid 0.000125-0.001 has its best (nearest 0.004) at the top: 0.002, 0.004 and
        # 0.008 are run in turn, 0.004 wins
        self.assertEqual(chosen["4node-demo"], 0.004)
        self.assertEqual(sorted(plan["lr"]["4node-demo"]["final_dev_ce"]),
                         ["0.000125", "0.00025", "0.0005", "0.001", "0.002", "0.004", "0.008"])
        # phase 1b: each cell re-tuned at S from {phase-1 lr, half}, phase 1's edge rule
        at_s = plan["lr_at_S"]
        self.assertEqual({c: v["chosen_lr"] for c, v in at_s.items()},
                         {**{c: 0.002 for c in at_s}, "1node-dense-equal-tokens": 0.0005})
        self.assertEqual(sorted(at_s["4node-sparse"]["final_dev_ce"], key=float),
                         ["0.001", "0.002", "0.004", "0.008"])
        self.assertEqual(sorted(at_s["1node-dense-equal-updates"]["final_dev_ce"], key=float),
                         ["0.0005", "0.001", "0.002", "0.004"])   # grew upward from 0.001
        self.assertEqual(sorted(at_s["1node-dense-equal-tokens"]["final_dev_ce"], key=float),
                         ["0.00025", "0.0005", "0.001"])
        self.assertEqual(at_s["4node-dense"]["cell"], "transformer-4node-dense-lr0.002-S6000")
        self.assertEqual(at_s["1node-dense-equal-tokens"]["steps"], 24000)
        # the budget rule re-checked at dense's lr at S (2S = 12000)
        b = plan["budget_at_lr_at_S"]
        self.assertEqual((b["lr"], b["status"]), (0.002, "met"))
        self.assertEqual(b["runs"]["12000"]["run"], "transformer-4node-dense-lr0.002-S12000-s1")
        names = [e["name"] for e in load(os.path.join(cfg, "transformer.json"))["experiments"]]
        # phase 1: 7 methods x 4 + 2 extensions, PowerSGD and DiLoCo 4 each, DeMo 7
        self.assertEqual(len([n for n in names if "-lr-" in n]), 30 + 4 + 4 + 7)
        # budget 3000, 6000, 12000 at 0.004; phase 1b: 35 grid runs, one of them the S run
        self.assertEqual(len([n for n in names if n.startswith("transformer-4node-dense-S")]), 3)
        grid = [n for n in names if n.endswith("-S6000-s1") and "2node" not in n and "rho" not in n]
        self.assertEqual(len(grid), 3 + 4 + 4 * 3 + 4 + 3 + 3 * 3)
        # phase 3: seeds 2 and 3 of the 11 cells (descendants: 3 seeds for the Transformer), all
        # at the lr at S; no seed beyond 1 at a phase-1 lr
        later = [n for n in names if n.endswith(("-s2", "-s3"))]
        self.assertEqual(len(later), 22)
        self.assertTrue(all("-lr0.002-" in n or "-lr0.0005-" in n for n in later), later)
        self.assertEqual(len(names), 45 + 3 + 34 + 1 + 22 + 4)
        calls = lines(os.path.join(res, "calls.log"))
        self.assertEqual(len(calls), len(names))  # every experiment ran exactly once
        # one experiment per run-experiment call, decided in the round just before it, so the
        # runs happen in the record's order (no run from a stale list)
        self.assertEqual(lines(os.path.join(res, "invocations.log")), [c.split()[0] for c in calls])
        self.assertEqual([c.split()[0] for c in calls], names)
        line = {c.split()[0]: c for c in calls}
        # the chosen lr and its warm-up reach the later runs; equal tokens = 4S updates of 1 node
        self.assertIn("train.lr=0.002 train.warmup=200", line["transformer-4node-sparse-lr0.002-S6000-s2"])
        self.assertIn("distributed.method=demo train.optimizer=sign train.lr=0.002",
                      line["transformer-4node-demo-lr0.002-S6000-s3"])
        tok = line["transformer-1node-dense-equal-tokens-lr0.0005-S6000-s3"]
        self.assertIn("train.lr=0.0005 train.warmup=200", tok)
        self.assertIn("train.max_steps=24000 valid.every=800 valid.final_every=100", tok)
        self.assertIn("train.lr=0.002", line["transformer-2node-dense-lr0.002-S6000-s1"])
        self.assertIn("distributed.drop_ratio=0.999",
                      line["transformer-4node-sparse-partial-k500-rho0.999-lr0.002-S6000-s1"])
        # phase 1b before any seed 2; seed 2 of every cell before any seed 3
        first_s2 = min(i for i, n in enumerate(names) if n.endswith("-s2"))
        self.assertLess(max(names.index(n) for n in grid), first_s2)
        self.assertLess(max(i for i, n in enumerate(names) if n.endswith("-s2")),
                        min(i for i, n in enumerate(names) if n.endswith("-s3")))
        # a second call has nothing left to do and runs nothing
        p, _, _ = self.run_driver()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("done up to phase scaling", p.stdout)
        self.assertEqual(len(lines(os.path.join(res, "calls.log"))), len(calls))

    def test_v3_seeds_at_the_phase1_lr_are_dropped_unrun(self):
        """A suite written by the v3 driver (seeds 2-3 decided at the phase-1 lrs, never
        started): the v3.1 driver drops them from the suite and never runs them."""
        p, cfg, res = self.run_driver("--until", "budget")
        self.assertEqual(p.returncode, 0, p.stderr)
        path = os.path.join(cfg, "transformer.json")
        suite = load(path)
        sets = next(e for e in suite["experiments"] if e["name"] == "transformer-4node-dense-S6000-s1")
        old = dict(sets, name="transformer-4node-sparse-S6000-s2",
                   set=[x.replace("train.lr=0.004", "train.lr=0.008") for x in sets["set"]])
        suite["experiments"].append(old)
        with open(path, "w") as f:
            json.dump(suite, f)
        p, _, _ = self.run_driver("--until", "main")
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [e["name"] for e in load(path)["experiments"]]
        self.assertNotIn(old["name"], names)
        self.assertIn("transformer-4node-sparse-lr0.002-S6000-s2", names)
        calls = [c.split()[0] for c in lines(os.path.join(res, "calls.log"))]
        self.assertNotIn(old["name"], calls)

    def test_busy_reads_the_lock_holder(self):
        """busy(): a holder on this host is judged by its pid (alive and running run-experiment),
        without flock; a holder on another host by a flock probe; no .lock: not busy."""
        import importlib.util
        import shutil
        import socket
        spec = importlib.util.spec_from_file_location("repro_v3_busy", DRIVER)
        drv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(drv)
        drv.RESULTS = os.path.join(self.work, "res")
        s = drv.Suite("m")
        d = os.path.join(s.dir, "m-x")
        os.makedirs(d)
        entry = {"name": "m-x"}
        self.assertFalse(drv.busy(s, entry))                       # no .lock
        fake = os.path.join(self.work, "run-experiment")           # a live "run-experiment"
        shutil.copy("/bin/sleep", fake)
        live = subprocess.Popen([fake, "30"])
        deadline = time.time() + 10
        while time.time() < deadline:   # /proc/<pid>/cmdline is empty until its exec settles
            with open(f"/proc/{live.pid}/cmdline", "rb") as f:
                if b"run-experiment" in f.read():
                    break
            time.sleep(0.01)
        try:
            lock = os.path.join(d, ".lock")
            with open(lock, "w") as f:
                f.write(f"run-experiment pid {live.pid} on host {socket.gethostname()} (started x)")
            self.assertTrue(drv.busy(s, entry))                    # no flock held: by its pid
            with open(lock, "w") as f:                             # this test's own pid: alive,
                f.write(f"run-experiment pid {os.getpid()} on host {socket.gethostname()} (x)")
            self.assertFalse(drv.busy(s, entry))                   # but not run-experiment
            with open(lock, "w") as f:
                f.write(f"run-experiment pid {live.pid} on host elsewhere-{socket.gethostname()}")
            self.assertFalse(drv.busy(s, entry))                   # another host: flock, free
            fd = os.open(lock, os.O_RDWR)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self.assertTrue(drv.busy(s, entry))                    # ... and held
            os.close(fd)
        finally:
            live.kill()
            live.wait()

    def test_suite_file_order(self):
        """Started runs keep their place; the rest follow in this round's order of decision (a
        v3 entry decided earlier but never started does not run ahead of it)."""
        import importlib.util
        spec = importlib.util.spec_from_file_location("repro_v3_order", DRIVER)
        drv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(drv)
        drv.RESULTS, drv.CONFIG_DIR = os.path.join(self.work, "res"), os.path.join(self.work, "cfg")
        s = drv.Suite("m")
        a, b, c, d = ({"name": f"m-{x}", "set": []} for x in "abcd")
        s.experiments = [a, b, c, d]
        os.makedirs(os.path.join(s.dir, "m-c"))        # c started
        s.want([d, c, b])                              # a: neither started nor wanted
        self.assertEqual([e["name"] for e in s.record()], ["m-c", "m-d", "m-b"])

    def test_a_started_run_resumes_before_later_decisions(self):
        """Each round runs one experiment: the first of the suite file's order no other process
        holds, so an interrupted run goes on before runs decided after it started."""
        import importlib.util
        spec = importlib.util.spec_from_file_location("repro_v3_next", DRIVER)
        drv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(drv)
        drv.RESULTS, drv.CONFIG_DIR = os.path.join(self.work, "res"), os.path.join(self.work, "cfg")
        s = drv.Suite("m")
        a, b, c = ({"name": f"m-{x}", "set": []} for x in "abc")
        s.experiments = [c]
        os.makedirs(os.path.join(s.dir, "m-c"))        # c started, not finished
        todo = s.want([a, b, c])                       # decided now: a, b, then c
        s.write()
        free = lambda s, e: False
        self.assertEqual(drv.next_to_run(s, todo, free)["name"], "m-c")
        self.assertEqual(drv.next_to_run(s, todo, lambda s, e: e["name"] == "m-c")["name"], "m-a")
        self.assertIsNone(drv.next_to_run(s, todo, lambda s, e: True))

    def test_a_run_whose_config_disagrees_stops_the_driver(self):
        """A run folder moved in (or edited) whose config.json contradicts the settings the
        rules give that name stops the driver with the file and the setting; one that agrees,
        float32 values included, passes."""
        p, cfg, res = self.run_driver("--until", "budget")
        run = os.path.join(res, "transformer", "transformer-4node-dense-S6000-s1")
        config = {"seed": 1, "cluster": {"nodes": 4},
                  "distributed": {"method": "dense"},
                  "train": {"lr": 0.004000000189989805, "warmup": 200, "max_steps": 6000,
                            "checkpoint_every": 500, "log_every": 100},
                  "valid": {"every": 200, "final_every": 25, "final_fraction": 0.25,
                            "test_at_end": True}}
        with open(os.path.join(run, "config.json"), "w") as f:
            json.dump(config, f)
        p, _, _ = self.run_driver("--until", "budget", "--plan")
        self.assertEqual(p.returncode, 0, p.stderr)
        config["train"]["warmup"] = 400
        with open(os.path.join(run, "config.json"), "w") as f:
            json.dump(config, f)
        p, _, _ = self.run_driver("--until", "budget")
        self.assertEqual(p.returncode, 2)
        self.assertIn("transformer-4node-dense-S6000-s1/config.json: the run there disagrees with "
                      "its entry in ", p.stderr)
        self.assertIn("(train.warmup is 400, not 200)", p.stderr)
        # a run the record does not list yet (moved in) is checked when the rules first want it
        p, _, _ = self.run_driver("--until", "lr-at-S")   # still stopped by the one above
        self.assertEqual(p.returncode, 2)
        config["train"]["warmup"] = 200
        with open(os.path.join(run, "config.json"), "w") as f:
            json.dump(config, f)
        moved = os.path.join(res, "transformer", "transformer-4node-dense-lr0.002-S6000-s1")
        os.makedirs(moved)
        with open(os.path.join(moved, "config.json"), "w") as f:
            json.dump(config, f)                           # lr 0.004 inside, 0.002 in its name
        p, _, _ = self.run_driver("--until", "lr-at-S")
        self.assertEqual(p.returncode, 2)
        self.assertIn("transformer-4node-dense-lr0.002-S6000-s1/config.json: the run there "
                      "disagrees with the settings the rules give it (train.lr is "
                      "0.004000000189989805, not 0.002)", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_a_cell_whose_every_lr_diverged_goes_lower(self):
        """Phase 1b: sparse+sum diverges at its phase-1 lr (0.004) and at 0.002; the grid goes
        on below the smallest lr (README v3.1), 0.001 ends finite, 0.0005 is worse: 0.001."""
        os.environ["FAKE_DIVERGE"] = r"sparse-sum-k500-(lr0\.002-)?S6000-s1$"
        try:
            p, cfg, res = self.run_driver("--until", "lr-at-S")
        finally:
            del os.environ["FAKE_DIVERGE"]
        self.assertEqual(p.returncode, 0, p.stderr)
        cell = load(os.path.join(res, "transformer", "plan.json"))["lr_at_S"]["4node-sparse-sum-k500"]
        self.assertEqual(cell["chosen_lr"], 0.001)
        self.assertEqual(cell["final_dev_ce"]["0.004"], None)
        self.assertEqual(cell["final_dev_ce"]["0.002"], None)
        self.assertEqual(sorted(cell["final_dev_ce"], key=float), ["0.0005", "0.001", "0.002", "0.004"])

    def test_a_started_run_the_rules_now_set_otherwise_stops_the_driver(self):
        p, cfg, res = self.run_driver("--until", "budget")
        path = os.path.join(cfg, "transformer.json")
        suite = load(path)
        sets = next(e for e in suite["experiments"] if e["name"] == "transformer-4node-dense-S6000-s1")
        clash = dict(sets, name="transformer-4node-dense-lr0.002-S6000-s1")  # lr 0.004 inside
        suite["experiments"].append(clash)
        with open(path, "w") as f:
            json.dump(suite, f)
        os.makedirs(os.path.join(res, "transformer", clash["name"]))   # it started
        p, _, _ = self.run_driver()
        self.assertEqual(p.returncode, 2, p.stdout[-1000:])
        self.assertIn("'transformer-4node-dense-lr0.002-S6000-s1' has started", p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        calls = [c.split()[0] for c in lines(os.path.join(res, "calls.log"))]
        self.assertNotIn(clash["name"], calls)
        p, _, _ = self.run_driver("--plan")          # --plan says the same, in one line
        self.assertEqual(p.returncode, 2)
        self.assertIn("has started", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_phase4_joins_while_the_last_phase3_runs_elsewhere(self):
        """Everything left of phase 3 held by another process: phase 4's runs go ahead (the
        second driver does not idle behind the last phase-3 run); the held one runs last."""
        fake = self.fake()
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg)
        last3 = "transformer-4node-demo-lr0.002-S6000-s3"   # the last phase-3 entry (S = 6000)
        held = os.path.join(res, "transformer", last3)
        os.makedirs(held)
        fd = os.open(os.path.join(held, ".lock"), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        run = [sys.executable, DRIVER, "transformer", "--bin", fake, "--results", res,
               "--config-dir", cfg]
        p = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ, SL_REPRO_V3_BUSY_WAIT_S="0.2"))
        out = ""
        for line in p.stdout:
            out += line
            if "running in another process" in line:
                break
        calls = [c.split()[0] for c in lines(os.path.join(res, "calls.log"))]
        self.assertIn("transformer-2node-dense-lr0.002-S6000-s1", calls)   # phase 4 already ran
        self.assertIn("transformer-4node-sparse-partial-k500-rho0.999-lr0.002-S6000-s1", calls)
        self.assertNotIn(last3, calls)
        os.close(fd)
        out += p.stdout.read()
        self.assertEqual(p.wait(timeout=60), 0, out[-2000:])
        calls = [c.split()[0] for c in lines(os.path.join(res, "calls.log"))]
        p.stdout.close()
        self.assertEqual(calls[-1], last3)
        self.assertEqual(len(calls), len(set(calls)))

    def test_a_stop_reaches_run_experiment_once(self):
        """SIGTERM to the driver's whole process group: run-experiment (in its own session)
        gets exactly one signal, from the driver, so it can write its checkpoint; the driver
        says how to continue and exits 130 without a traceback or a temp file."""
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg)
        got = os.path.join(self.work, "signals")
        slow = os.path.join(self.work, "slow-run-experiment")
        with open(slow, "w") as f:
            f.write(f"""#!/usr/bin/env python3
import signal, sys, time
n = 0
def on(sig, _):
    global n
    n += 1
    open({got!r}, "a").write(f"{{sig}}\\n")
signal.signal(signal.SIGTERM, on)
signal.signal(signal.SIGINT, on)
open({got!r}, "w").close()
t = time.time()
while n == 0 and time.time() - t < 30:
    time.sleep(0.05)
time.sleep(0.5)   # "writing its checkpoint"; a second signal would be counted
sys.exit(0)
""")
        os.chmod(slow, 0o755)
        p = subprocess.Popen([sys.executable, DRIVER, "transformer", "--bin", slow, "--results",
                              res, "--config-dir", cfg, "--until", "lr"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        deadline = time.time() + 30
        while not os.path.exists(got) and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(got), "run-experiment never started")
        os.killpg(p.pid, signal.SIGTERM)      # the whole group, as a terminal or a job ends
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        self.assertEqual(lines(got), [str(int(signal.SIGTERM))])
        self.assertIn("stopped; run the same command again", err)
        self.assertNotIn("Traceback", err)
        self.assertEqual([f for f in os.listdir(cfg) if f.endswith(".tmp")], [])


if __name__ == "__main__":
    unittest.main()
