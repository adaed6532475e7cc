#!/usr/bin/env python3
"""slanalysis.claims_v3 and `analyze.py claims-v3`: the pre-registered v3 verdicts on a
hand-made results tree (S = 300, seeds 1-3), every number worked out by hand below.

Clock (profile "gpu-class-assumed.json" of the test: c = 0.05 s for both models, measured
selection; network 1gbe with PAPER.md's model, --link-terms paper): virtual seconds per step
  dense 4 nodes  0.05 + 2e6 * 8e-9 + 12 * 50e-6            = 0.0666
  sparse-type    0.05 + 0.01 (SEL) + 1e5 * 8e-9 + 9 * 5e-5 = 0.06125
  1 node         0.05
Every seed of 4-node dense, of the best cells and of the 1-node runs has the same dev CE
curve, so every bootstrap replicate gives the point estimate: the intervals are [point, point].

Dev CE at updates 100 / 200 / 300 (1 node, equal tokens: at 400 / 800 / 1200):
  transformer 4node-dense    4.0 3.0 2.0 (each seed)   test BLEU 30 31 32, chrF 50 52 54
              4node-sparse   s1 5.0 4.0 3.0, s2 5.0 4.0 3.5, s3 5.0 4.5 3.25;  BLEU 16 29 27
              partial        3.0 2.0 f, f = 2.0 / 1.9375 / 2.0625;  BLEU 30.5 31 31.5
              sum            3.5 2.5 2.0                            BLEU 30 30 30
              error          3.0 2.5 2.25                           BLEU 29 29 29
              fedavg         3.0 2.75 2.5                           BLEU 28 29 30
              1node-equal-tokens 4.0 3.0 2.0
              powersgd-r4    3.0 2.5 2.25                           BLEU 29 30 31
  rnn         4node-dense    4.0 2.5 2.0 (each seed)   test BLEU 40 41 42
              4node-sparse   s1 4.0 3.0 2.125, s2 4.0 2.5 2.0, s3 4.0 3.0 2.5;  BLEU 38 39 40
              partial        3.0 2.0 2.0                            BLEU 41 41 41
              sum            s1, s3 3.0 2.0 2.0; s2 4.0 3.0 2.0     BLEU 40 40 40
              error          3.0 2.5 2.3                            BLEU 39 39 39
              1node-equal-tokens 2.5 2.0 1.75 (s1, s2; s3 missing at first)
              powersgd-r4    s1 only: 3.0 2.5 2.5                   BLEU 37
  fedavg (rnn), equal updates, DiLoCo, DeMo: no runs.
Divergence at the averaging steps 100, 200, 300 of every sparse+local and fedavg run: before
0.5, 1.0, 1.5 (mean 1.0), after 0.
"""
import json
import math
import os
import re
import shutil
import statistics

import analysis_env as env
from make_vclock_fixtures import modeled
from slanalysis import claims_v3 as c3

S = 300
LOG_EVERY = 10
DENSE = (0.1, 2e6, 12, 0.0)     # C, X, Y, SEL per step
SPARSE = (0.1, 1e5, 9, 0.01)
ONE = (0.1, 0.0, 0, 0.0)
D, P, O = 0.0666, 0.06125, 0.05
SEEDS = (1, 2, 3)


def same(curve):
    return {s: curve for s in SEEDS}


TF = {  # cell: (nodes, method, clock, {seed: curve}, {seed: test BLEU}, {seed: chrF} or None)
    "4node-dense": (4, "dense", DENSE, same((4.0, 3.0, 2.0)), {1: 30, 2: 31, 3: 32},
                    {1: 50, 2: 52, 3: 54}),
    "4node-sparse": (4, "sparse", SPARSE, {1: (5.0, 4.0, 3.0), 2: (5.0, 4.0, 3.5),
                                           3: (5.0, 4.5, 3.25)}, {1: 16, 2: 29, 3: 27}, None),
    "4node-sparse-partial-k500": (4, "sparse+partial", SPARSE,
                                  {1: (3.0, 2.0, 2.0), 2: (3.0, 2.0, 1.9375),
                                   3: (3.0, 2.0, 2.0625)}, {1: 30.5, 2: 31, 3: 31.5}, None),
    "4node-sparse-sum-k500": (4, "sparse+sum", SPARSE, same((3.5, 2.5, 2.0)), same(30), None),
    "4node-sparse-error-k500": (4, "sparse+error", SPARSE, same((3.0, 2.5, 2.25)), same(29), None),
    "4node-fedavg-k500": (4, "fedavg", DENSE,
                          same((3.0, 2.75, 2.5)), {1: 28, 2: 29, 3: 30}, None),
    "1node-dense-equal-tokens": (1, "dense", ONE, same((4.0, 3.0, 2.0)), same(20), None),
    "4node-powersgd-r4": (4, "powersgd", DENSE, same((3.0, 2.5, 2.25)), {1: 29, 2: 30, 3: 31},
                          None),
}
RNN = {
    "4node-dense": (4, "dense", DENSE, same((4.0, 2.5, 2.0)), {1: 40, 2: 41, 3: 42}, None),
    "4node-sparse": (4, "sparse", SPARSE, {1: (4.0, 3.0, 2.125), 2: (4.0, 2.5, 2.0),
                                           3: (4.0, 3.0, 2.5)}, {1: 38, 2: 39, 3: 40}, None),
    "4node-sparse-partial-k500": (4, "sparse+partial", SPARSE, same((3.0, 2.0, 2.0)), same(41),
                                  None),
    "4node-sparse-sum-k500": (4, "sparse+sum", SPARSE, {1: (3.0, 2.0, 2.0), 2: (4.0, 3.0, 2.0),
                                                        3: (3.0, 2.0, 2.0)}, same(40), None),
    "4node-sparse-error-k500": (4, "sparse+error", SPARSE, same((3.0, 2.5, 2.3)), same(39), None),
    "1node-dense-equal-tokens": (1, "dense", ONE, {1: (2.5, 2.0, 1.75), 2: (2.5, 2.0, 1.75)},
                                 same(30), None),
    "4node-powersgd-r4": (4, "powersgd", DENSE, {1: (3.0, 2.5, 2.5)}, {1: 37}, None),
}
AVERAGING = ("sparse+partial", "sparse+sum", "sparse+error", "fedavg")


def write_run(d, model, nodes, method, clock, seed, curve, bleu, chrf, status="complete",
              reason=None):
    C, X, Y, SEL = clock
    steps = S * (4 if nodes == 1 else 1)
    every = steps // 3
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"name": os.path.basename(d), "seed": seed,
                   "model": {"type": model, "d_model": 4},
                   "data": {"batch_tokens": 10}, "cluster": {"nodes": nodes},
                   "train": {"log_every": LOG_EVERY, "max_steps": steps},
                   "distributed": {"method": method.split("+")[0]}}, f)
    with open(os.path.join(d, "log.jsonl"), "w") as f:
        for s in range(LOG_EVERY, steps + 1, LOG_EVERY):
            row = {"step": s, "tokens": s * 10 * nodes, "nodes": nodes, "method": method,
                   "compute_s": C, "train_loss": 3.0, "modeled_time_s": modeled(s, C, X, Y),
                   "comm_model": 2}
            if SEL:
                row["pairs"] = 5
                row["strategy"] = {"compress_s": SEL * 0.75, "decompress_s": SEL * 0.25,
                                   "rho": 0.99, "k_target": 5}
            if method in AVERAGING and s % 100 == 0:
                row["divergence"], row["divergence_after"] = 0.5 * s / 100, 0.0
            f.write(json.dumps(row) + "\n")
    with open(os.path.join(d, "valid.jsonl"), "w") as f:
        for i, v in enumerate(curve, 1):
            f.write(json.dumps({"step": i * every, "dev_ce": v, "bleu": 40.0 - 10.0 * v,
                                "modeled_time_s": modeled(i * every, C, X, Y),
                                "comm_model": 2}) + "\n")
    summary = {"experiment": os.path.basename(d), "status": status, "steps": steps,
               "nodes": nodes, "method": method, "parameters": 500, "test_bleu": bleu}
    if chrf is not None:
        summary["test_chrf"] = chrf
    if reason:
        summary["reason"] = reason
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f)


def write_tree(root):
    for model, cells in (("transformer", TF), ("rnn", RNN)):
        for cell, (nodes, method, clock, curves, bleu, chrf) in cells.items():
            for seed, curve in curves.items():
                write_run(os.path.join(root, model, f"{model}-{cell}-S{S}-s{seed}"), model,
                          nodes, method, clock, seed, curve, bleu[seed],
                          chrf[seed] if chrf else None)
    with open(os.path.join(root, "transformer", "plan.json"), "w") as f:
        json.dump({"budget": {"S": S, "status": "met", "runs": {}}}, f)
    with open(os.path.join(root, "rnn", "plan.json"), "w") as f:
        json.dump({"budget": {"S": None, "status": "running", "runs": {"3000": {}}}}, f)


def write_profile(work):
    d = os.path.join(work, "hw")
    os.makedirs(d)
    path = os.path.join(d, "gpu-class-assumed.json")
    with open(path, "w") as f:
        json.dump({"name": "fix-gpu", "source": "test fixture",
                   "seconds_per_step": [{"match": {"model.type": "transformer"}, "seconds": 0.05},
                                        {"match": {"model.type": "rnn"}, "seconds": 0.05}],
                   "selection": {"mode": "measured"}}, f)
    return path


# Hand-computed values --------------------------------------------------------------------
# claim 1 (b): per-seed losses 1 - sparse_s / dense_s
LOSS_T = [1 - 16 / 30, 1 - 29 / 31, 1 - 27 / 32]      # 0.4667, 0.0645, 0.1563
LOSS_R = [1 - 38 / 40, 1 - 39 / 41, 1 - 40 / 42]      # 0.0500, 0.0488, 0.0476
L_T, L_R = 1 - 24 / 31, 1 - 39 / 41                   # seed means: 0.2258, 0.0488
SPREAD = statistics.stdev(LOSS_T) + statistics.stdev(LOSS_R)   # 0.2107 + 0.0012 = 0.2119
# L_T - L_R = 0.1770 < 0.2119: (b) does not hold -> "not"
# claim 2, RNN: target 1.1 x 2.0 = 2.2; updates to it, (s0, x0) -> (s1, x1):
#   sparse s1 (200, 3.0) -> (300, 2.125): 200 + 100 * 0.8 / 0.875 = 291.43; s2 (200, 2.5) ->
#   (300, 2.0): 200 + 100 * 0.3 / 0.5 = 260; s3 never (2.5)
#   partial (100, 3.0) -> (200, 2.0): 100 + 100 * 0.8 = 180 on every seed: fewer everywhere
#   sum s2 (200, 3.0) -> (300, 2.0): 280 > 260: not on every seed; error never (2.3)
SPARSE_STEPS_R = {1: 200 + 100 * 0.8 / 0.875, 2: 260.0, 3: None}
# claim 3, target 1.05 x 2.0 = 2.1 (both models):
#   transformer dense (200, 3.0) -> (300, 2.0): 290; partial (100, 3.0) -> (200, 2.0): 190;
#     sum (200, 2.5) -> (300, 2.0): 280; error never; 1 node (800, 3.0) -> (1200, 2.0): 1160
#   rnn dense (200, 2.5) -> (300, 2.0): 280; partial 190; 1 node (400, 2.5) -> (800, 2.0): 720
TF_OVER_DENSE = 290 * D / (190 * P)     # 1.6597 >= 1.5 holds
TF_OVER_ONE = 1160 * O / (190 * P)      # 4.9839 >= 3.5 holds
RNN_OVER_DENSE = 280 * D / (190 * P)    # 1.6024 >= 1.5 holds
RNN_OVER_ONE = 720 * O / (190 * P)      # 3.0934 <  3.5 fails -> claim 3 "partly"
# claim 1 (b), other readings (shown only): the ranges of the per-seed-pair losses, and the sd
# over all 9 sparse x dense pairs of each model
RANGE_SPREAD = (max(LOSS_T) - min(LOSS_T)) + (max(LOSS_R) - min(LOSS_R))  # 0.4022 + 0.0024
UNPAIRED_SPREAD = (statistics.stdev([1 - s / d for d in (30, 31, 32) for s in (16, 29, 27)]) +
                   statistics.stdev([1 - s / d for d in (40, 41, 42) for s in (38, 39, 40)]))


class ClaimsV3(env.Case):
    def setUp(self):
        super().setUp()
        self.root = os.path.join(self.work, "repro-v3")
        write_tree(self.root)
        self.profile = write_profile(self.work)

    def claims(self, *extra):
        out = os.path.join(self.work, "claims.json")
        r = env.run_script(["scripts/analyze.py", "claims-v3", self.root, "--profile",
                            self.profile, "--link-terms", "paper", "--json", out] + list(extra))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return json.load(f), r.stdout

    def speedup_vs_target(self, *extra):
        """analyze.py speedup-vs-target on the Transformer's cells (exit status checked)."""
        r = env.run_script(["scripts/analyze.py", "speedup-vs-target", self.root, "--model",
                            "transformer", "--profile", self.profile, "--network", "1gbe",
                            "--link-terms", "paper", "--no-plot", "--out",
                            os.path.join(self.work, "figs")] + list(extra))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    # -- pieces --------------------------------------------------------------------------
    def test_combine_and_stats(self):
        self.assertEqual(c3.combine([True, True]), "reproduced")
        self.assertEqual(c3.combine([True, False]), "partly")
        self.assertEqual(c3.combine([False, False]), "not")
        self.assertEqual(c3.combine([True, None]), "pending")
        self.assertEqual(c3.combine([]), "pending")
        s = c3.stats([1.0, None, 3.0])
        self.assertEqual((s["mean"], s["n"]), (2.0, 2))
        self.close(s["sd"], math.sqrt(2))
        self.assertIsNone(c3.stats([5.0])["sd"])
        self.assertTrue(c3.fewer(180.0, None))
        self.assertFalse(c3.fewer(None, None))
        self.assertFalse(c3.fewer(280.0, 260.0))
        self.assertEqual(c3.jsonable({"a": math.inf, 1: [math.nan]}), {"a": "inf", "1": [None]})

    def test_cells_match_the_driver(self):
        # the cells are scripts/repro_v3.py's phase-3 experiments, seeds included (seed 1: the
        # phase-1b run at the cell's lr at S, seeds 2 and 3: phase_main)
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "repro_v3_for_test", os.path.join(env.REPO, "scripts", "repro_v3.py"))
        drv = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(drv)

        class Stub:
            def __init__(self, model):
                self.model = model

            def want(self, entries):
                return entries
        for model in c3.MODELS:
            lrs = dict.fromkeys(drv.METHODS, 0.004)
            lrS = dict.fromkeys(drv.CELLS, 0.004)
            names = {e["name"] for e in drv.phase_main(Stub(model), lrs, lrS, S)}
            names |= {drv.cell_entry(model, k, S, 1, 0.004, 0.004)["name"] for k in drv.CELLS}
            mine = {f"{model}-{k}-S{S}-s{s}" for k in c3.CELLS
                    for s in (c3.DESCENDANT_SEEDS[model] if k in c3.DESCENDANTS else c3.SEEDS)}
            self.assertEqual(mine, names, model)

    # -- partial data: the RNN's S is not decided --------------------------------------------
    def test_S_not_decided_everything_pending(self):
        doc, text = self.claims()
        self.assertIsNone(doc["models"]["rnn"]["S"])
        self.assertIn("not decided yet: plan.json budget.S is null",
                      doc["models"]["rnn"]["S_source"])
        for k in ("1a", "1b", "2", "3", "4"):
            self.assertEqual(doc["claims"][k]["verdict"], "pending", k)
            self.assertTrue(any(x.startswith("rnn: S not decided yet")
                                for x in doc["claims"][k]["missing"]), k)
        # the Transformer's numbers are there all the same
        cell = doc["models"]["transformer"]["cells"]["4node-dense"]
        self.assertEqual(cell["test_bleu"]["mean"], 31)                     # (30 + 31 + 32) / 3
        self.close(cell["test_bleu"]["sd"], 1.0)
        self.close(cell["test_chrf"]["sd"], 2.0)                            # 50 52 54
        self.assertIn("| 4-node dense | `transformer-4node-dense-S300` | 3/3 | 2.000 +- 0.000 (n=3)"
                      " | 31.00 +- 1.00 (n=3) | 52.00 +- 2.00 (n=3) | - |", text)
        self.assertIn("**Claim 1 (a): pending**", text)

    def test_nothing_there(self):
        empty = os.path.join(self.work, "empty")
        os.makedirs(empty)
        r = env.run_script(["scripts/analyze.py", "claims-v3", empty])   # a wrong folder
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no experiments under it", r.stderr)
        # a suite begun (the driver's plan.json) with no run finished: every verdict pending
        os.makedirs(os.path.join(empty, "rnn"))
        with open(os.path.join(empty, "rnn", "plan.json"), "w") as f:
            f.write("{}\n")
        r = env.run_script(["scripts/analyze.py", "claims-v3", empty])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("pending**"), 5)
        self.assertIn("transformer: S no transformer/plan.json", r.stdout)
        r = env.run_script(["scripts/analyze.py", "claims-v3", os.path.join(self.work, "nope")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a directory", r.stderr)

    # -- every verdict -----------------------------------------------------------------------
    def test_verdicts(self):
        doc, text = self.claims("--S-rnn", str(S))
        cl = doc["claims"]
        # table 1
        tf = doc["models"]["transformer"]["cells"]
        self.close(tf["4node-sparse-partial-k500"]["final_dev_ce"]["mean"], 2.0)
        self.close(tf["4node-sparse-partial-k500"]["final_dev_ce"]["sd"], 0.0625)   # +-0.0625
        self.close(tf["4node-sparse"]["final_dev_ce"]["mean"], 3.25)                 # 3, 3.5, 3.25
        self.close(tf["4node-sparse"]["final_dev_ce"]["sd"], 0.25)
        self.assertEqual(tf["4node-diloco-h500"]["final_dev_ce"]["n"], 0)
        self.assertEqual(doc["models"]["rnn"]["cells"]["4node-powersgd-r4"]["expected_seeds"], [1])

        # claim 1 (a): transformer max sparse 29 < min dense 30 holds; rnn 40 < 40 fails
        self.assertEqual(cl["1a"]["models"]["transformer"]["holds"], True)
        self.assertEqual((cl["1a"]["models"]["rnn"]["max_sparse"],
                          cl["1a"]["models"]["rnn"]["min_dense"]), (40, 40))
        self.assertEqual(cl["1a"]["models"]["rnn"]["holds"], False)
        self.assertEqual(cl["1a"]["verdict"], "partly")
        # claim 1 (b)
        self.close(cl["1b"]["models"]["transformer"]["loss"], L_T)
        self.close(cl["1b"]["models"]["rnn"]["loss"], L_R)
        for got, want in zip(cl["1b"]["models"]["transformer"]["per_seed_loss"].values(), LOSS_T):
            self.close(got, want)
        self.close(cl["1b"]["difference"], L_T - L_R)
        self.close(cl["1b"]["spread"], SPREAD)
        self.assertEqual(cl["1b"]["verdict"], "not")
        other = cl["1b"]["other_readings"]
        self.close(other["range of the per-seed-pair losses"]["spread"], RANGE_SPREAD)
        self.close(other["sd over every sparse x dense seed pair (unpaired)"]["spread"],
                   UNPAIRED_SPREAD)
        self.assertFalse(other["range of the per-seed-pair losses"]["holds"])
        self.assertIn(f"other reading of the spread, shown only: range of the per-seed-pair "
                      f"losses {RANGE_SPREAD:.4f} (would not hold)", text)
        # claim 2: transformer partial 2.0 vs dense 2.0 (0%, within), error +12.5%; rnn partial
        # fewer on every seed
        t = cl["2"]["transformer"]["cells"]
        self.close(t["4node-sparse-partial-k500"]["relative_to_dense"], 0.0)
        self.close(t["4node-sparse-error-k500"]["relative_to_dense"], 0.125)
        self.assertEqual(t["4node-sparse-error-k500"]["within"], False)
        self.assertTrue(cl["2"]["transformer"]["holds"])
        r = cl["2"]["rnn"]
        self.close(r["target"], 2.2)
        for s, want in SPARSE_STEPS_R.items():
            if want is None:
                self.assertIsNone(r["sparse_steps"][str(s)])
            else:
                self.close(r["sparse_steps"][str(s)], want)
        for s in ("1", "2", "3"):
            self.close(r["cells"]["4node-sparse-partial-k500"]["steps"][s], 180.0)
        self.close(r["cells"]["4node-sparse-sum-k500"]["steps"]["2"], 280.0)
        self.assertEqual(r["cells"]["4node-sparse-sum-k500"]["fewer_than_sparse"],
                         {"1": True, "2": False, "3": True})
        self.assertEqual(r["cells"]["4node-sparse-partial-k500"]["every_seed"], True)
        self.assertEqual(r["cells"]["4node-sparse-error-k500"]["every_seed"], False)
        self.assertEqual(cl["2"]["verdict"], "reproduced")
        # against fedavg: transformer partial 2.0 - 2.5 = -0.5 dev CE, 31 - 29 = +2 BLEU
        f = doc["against_fedavg"]["transformer"]["cells"]["4node-sparse-partial-k500"]
        self.close(f["dev_ce_difference"], -0.5)
        self.close(f["test_bleu_difference"], 2.0)
        self.assertIsNone(doc["against_fedavg"]["rnn"]["cells"]["4node-sparse-partial-k500"]
                          ["dev_ce_difference"])                 # the RNN's fedavg has no run
        # claim 3: the RNN's 1-node run lacks seed 3
        self.assertEqual(cl["3"]["verdict"], "pending")
        self.assertEqual(cl["3"]["missing"], ["`rnn-1node-dense-equal-tokens-S300`: s3 missing"])
        self.assertIn("- still missing:\n  - `rnn-1node-dense-equal-tokens-S300`: s3 missing",
                      text)
        self.assertIn("best", cl["3"]["models"]["transformer"])  # the Transformer is judged
        self.close(cl["3"]["models"]["transformer"]["cells"]["4node-sparse-partial-k500"]
                   ["dense4"]["low"], TF_OVER_DENSE)
        # claim 4: every sparse+local run drifts and resets
        self.assertEqual(len(cl["4"]["runs"]), 18)
        run = cl["4"]["runs"]["transformer-4node-sparse-sum-k500-S300-s2"]
        self.assertEqual((run["averaging_steps"], run["mean_before"], run["mean_after"]),
                         (3, 1.0, 0.0))
        self.assertEqual(cl["4"]["verdict"], "reproduced")
        self.assertEqual(len(cl["4"]["context"]), 3)             # the Transformer's fedavg
        # descendants: powersgd 2.25 - 2.0 = +0.25 dev CE, 30 - 31 = -1 BLEU
        d = doc["descendants"]["transformer"]["cells"]["4node-powersgd-r4"]
        self.close(d["dev_ce_difference"], 0.25)
        self.close(d["test_bleu_difference"], -1.0)
        rnn_psgd = doc["descendants"]["rnn"]["cells"]["4node-powersgd-r4"]
        self.assertIsNone(rnn_psgd["final_dev_ce"]["sd"])                  # one seed
        # the markdown says the same
        # with each model's part beside the verdict (1 (b): each model's loss and per-seed sd,
        # the numbers checked above; 3: the RNN's 1-node control lacks s3, so its part waits)
        for line in ("| 1 (a) gradient dropping damages BLEU | holds | does not hold | partly |",
                     "| 1 (b) the Transformer much more than the RNN | loss 0.2258, sd 0.2108 | "
                     "loss 0.0488, sd 0.0012 | not |",
                     "| 2 the local gradient restores / speeds up convergence | holds | holds | "
                     "reproduced |",
                     "| 3 1.5x over 4-node dense, 3.5x over 1 node | over 4-node dense: holds; "
                     "over 1 node: holds | not judged yet | pending |",
                     "| 4 the copies drift, averaging resets them | 9 of 9 complete runs | "
                     "9 of 9 complete runs | reproduced |"):
            self.assertIn(line, text)
        self.assertIn("- rule: " + c3.RULES["1b"], text)

    def test_claim3_with_every_seed_and_speedup_vs_target_agrees(self):
        nodes, method, clock, curves, bleu, _ = RNN["1node-dense-equal-tokens"]
        write_run(os.path.join(self.root, "rnn", f"rnn-1node-dense-equal-tokens-S{S}-s3"), "rnn",
                  nodes, method, clock, 3, curves[1], 30, None)
        doc, text = self.claims("--S-rnn", str(S))
        c = doc["claims"]["3"]
        for model, over4, over1, holds1 in (("transformer", TF_OVER_DENSE, TF_OVER_ONE, True),
                                            ("rnn", RNN_OVER_DENSE, RNN_OVER_ONE, False)):
            m = c["models"][model]
            self.assertEqual(m["best"], "4node-sparse-partial-k500", model)
            self.close(m["target"], 2.1)
            best = m["cells"][m["best"]]
            for ref, want in (("dense4", over4), ("one_node", over1)):
                self.close(best[ref]["point"], want, what=f"{model} {ref}")
                self.close(best[ref]["low"], want, what=f"{model} {ref} low")   # [point, point]
                self.close(best[ref]["high"], want, what=f"{model} {ref} high")
            self.assertEqual(m["holds"], {"dense4": True, "one_node": holds1})
            # error never reaches 2.1: "not reached"
            self.assertEqual(m["cells"]["4node-sparse-error-k500"]["dense4"]["text"], "not reached")
        self.assertEqual(c["verdict"], "partly")
        self.assertIn(f"over 1 node (equal tokens) {RNN_OVER_ONE:.2f}x [{RNN_OVER_ONE:.2f}, "
                      f"{RNN_OVER_ONE:.2f}] (lower end >= 3.5: no)", text)
        # the best cell is sparse+partial itself: no separate line for it
        self.assertEqual(c["models"]["rnn"]["partial_alone"], {"dense4": True, "one_node": False})
        self.assertNotIn("sparse+partial on its own", text)
        # the other network model (the test runs --link-terms paper, so the other is the
        # repository's measured link terms): the verdict again, shown beside
        alt = c["other_link_terms"]
        self.assertIn("measured", alt["link_terms"])
        self.assertEqual(alt["models"]["transformer"]["best"], "4node-sparse-partial-k500")
        self.assertIn(alt["verdict"], ("reproduced", "partly", "not"))
        self.assertIn("with the other network model (", text)
        # other settings and targets are there: x1.00 of the transformer (2.0): partial reaches
        # it at 200, dense at 300
        other = c["models"]["transformer"]["other_targets"]["x1.00"]["4node-sparse-partial-k500"]
        self.close(other["dense4"]["point"], 300 * D / (200 * P))
        self.assertIn("fix-gpu", c["models"]["rnn"]["other_settings"])
        # speedup-vs-target prints the same cell (same variants, draws, profile, network)
        figs = os.path.join(self.work, "figs")
        for model in ("transformer", "rnn"):
            r = env.run_script(["scripts/analyze.py", "speedup-vs-target", self.root, "--model",
                                model, "--ref4", f"{model}-4node-dense-S{S}", "--ref1",
                                f"{model}-1node-dense-equal-tokens-S{S}", "--profile",
                                self.profile, "--network", "1gbe", "--link-terms", "paper",
                                "--no-plot", "--out", figs])
            self.assertEqual(r.returncode, 0, r.stderr)
            for ref, title in (("dense4", "4-node dense"), ("one_node", "1 node")):
                mine = c["models"][model]["cells"]["4node-sparse-partial-k500"][ref]["text"]
                # the section of every target (columns x1.00, x1.05, ...) and the table at a
                # glance (x1.05 by default, claim 3's target; one column per profile x network)
                for head, column in ((f"{model}: speed-up over {title} (", 4 + 1),
                                     (f"{model} at a glance: speed-up over {title} (", 4)):
                    section = r.stdout.split(head)[1]
                    row = next(x for x in section.splitlines()
                               if x.startswith(f"| {model}-4node-sparse-partial-k500-S{S} |"))
                    cells = [x.strip() for x in row.strip("|").split("|")]
                    self.assertEqual(cells[column], mine)

    def test_claim3_reference_never_reaching_the_target_cannot_pass(self):
        """The RNN's 1-node control unstable (dev CE 3.0, 2.8, 2.5: never 2.1): sparse+partial is
        'infinitely faster', which is no evidence; the check cannot be judged and does not
        hold. Its point estimate and interval stay what they are (inf)."""
        for seed in SEEDS:
            write_run(os.path.join(self.root, "rnn", f"rnn-1node-dense-equal-tokens-S{S}-s{seed}"),
                      "rnn", 1, "dense", ONE, seed, (3.0, 2.8, 2.5), 30, None)
        doc, text = self.claims("--S-rnn", str(S))
        r = doc["claims"]["3"]["models"]["rnn"]
        self.assertEqual(r["cells"][r["best"]]["one_node"]["text"], "reference not reached")
        self.assertEqual(r["holds"], {"dense4": True, "one_node": False})
        self.assertIn("never reaches the target", r["cannot_judge"]["one_node"])
        self.assertNotIn("dense4", r["cannot_judge"])
        self.assertEqual(doc["claims"]["3"]["verdict"], "partly")
        self.assertIn("(lower end >= 3.5: the reference never reaches the target: cannot be "
                      "judged (counted as not holding))", text)

    def test_final_dev_ce_is_the_last_update(self):
        """A complete run whose last validation is not at its last update has no final dev CE
        (the rules read the dev CE at update S): it does not count as done."""
        d = os.path.join(self.root, "transformer", f"transformer-4node-fedavg-k500-S{S}-s2")
        with open(os.path.join(d, "valid.jsonl")) as f:
            rows = f.readlines()
        with open(os.path.join(d, "valid.jsonl"), "w") as f:
            f.writelines(rows[:-1])
        doc, _ = self.claims("--S-rnn", str(S))
        seed = doc["models"]["transformer"]["cells"]["4node-fedavg-k500"]["seeds"]["2"]
        self.assertEqual(seed["state"], "complete but without final_dev_ce (its last validation "
                                        f"is at update 200, not at its end, {S})")
        self.assertIsNone(seed["final_dev_ce"])

    def test_step_at_bytes(self):
        # 250 bytes per update over 1..100 (logged at 50 and 100), then 50: 30000 bytes at
        # update 100 + 5000 / 50 = 200; never within 150 updates; exactly at a logged step
        pts = [(50, 250.0), (100, 250.0), (200, 50.0), (300, 50.0)]
        self.close(c3.step_at_bytes(pts, 30000, 300), 200.0)
        self.close(c3.step_at_bytes(pts, 12500, 300), 50.0)
        self.close(c3.step_at_bytes(pts, 1000, 300), 4.0)
        self.assertIsNone(c3.step_at_bytes(pts, 30000, 150))
        # the last logged value stands for the steps after it, up to the run's end
        self.close(c3.step_at_bytes([(100, 10.0)], 1500, 300), 150.0)
        self.assertIsNone(c3.step_at_bytes([], 10, 300))

    def test_step_at_bytes_with_averaging_steps(self):
        # DiLoCo-like: nothing between outer steps, 1000 bytes at the averaging step 200 (logged
        # beside the rows every 100): the bytes arrive at once, between update 199 and 200
        log = [{"step": 100, "bytes_sent": 0.0},
               {"step": 200, "bytes_sent": 1000.0, "divergence": 1.0},
               {"step": 300, "bytes_sent": 0.0}]
        pts, avg = c3.bytes_points(log)
        self.assertEqual((pts, avg), ([(100, 0.0), (300, 0.0)], [(200, 1000.0)]))
        self.assertEqual(c3.cumulative_bytes(pts, avg, 300), 1000.0)  # not 100 x 1000
        self.close(c3.step_at_bytes(pts, 500, 300, avg), 199.5)
        self.close(c3.step_at_bytes(pts, 1000, 300, avg), 200.0)
        self.assertIsNone(c3.step_at_bytes(pts, 1001, 300, avg))
        # sparse+partial-like: 10 bytes per update, the averaging step 100 sends 110 (its own 10
        # plus 100 of parameters): 1100 at update 100, 990 at 99 -> 1050 at 99 + 60 / 110
        pts, avg = [(100, 10.0), (200, 10.0)], [(100, 110.0)]
        self.close(c3.cumulative_bytes(pts, avg, 200), 2100.0)
        self.close(c3.step_at_bytes(pts, 1050, 200, avg), 99 + 60 / 110)

    def test_speedup_vs_target_takes_references_and_rows_from_plan(self):
        """In a v3 tree speedup-vs-target's defaults are the phase-3 cells at plan.json's S:
        a budget run with a shorter name (4node-dense-S30) is neither the reference nor a row."""
        nodes, method, clock, curves, bleu, _ = TF["4node-dense"]
        write_run(os.path.join(self.root, "transformer", "transformer-4node-dense-S30-s1"),
                  "transformer", nodes, method, clock, 1, (9.0, 8.0, 7.0), 5, None)
        r = self.speedup_vs_target()
        self.assertIn(f"transformer/plan.json: budget S = {S}; references from it: "
                      f"`transformer-4node-dense-S{S}` and "
                      f"`transformer-1node-dense-equal-tokens-S{S}`; rows and lines: the "
                      f"variants at S", r.stdout)
        self.assertIn(f"Reference `transformer-4node-dense-S{S}` (3 seed(s))", r.stdout)
        self.assertNotIn("| transformer-4node-dense-S30 |", r.stdout)
        section = r.stdout.split("speed-up over 4-node dense (")[1]
        row = next(x for x in section.splitlines()
                   if x.startswith(f"| transformer-4node-sparse-partial-k500-S{S} |"))
        self.assertIn(f"| {TF_OVER_DENSE:.2f}x [", row)          # the x1.05 column
        # --only . shows every run
        r = self.speedup_vs_target("--only", ".")
        self.assertIn("| transformer-4node-dense-S30 |", r.stdout)

    def test_cells_at_their_lr_at_S_from_plan(self):
        """v3.1: plan.json's lr_at_S names each cell's variant; the cell at the phase-1 lr stays
        a run of the tree but is no longer the cell (nor the reference); a cell not tuned yet
        is pending."""
        nodes, method, clock, curves, bleu, _ = TF["4node-dense"]
        tuned = "transformer-4node-dense-lr0.002-S300"
        for seed in (1, 2, 3):
            write_run(os.path.join(self.root, "transformer", f"{tuned}-s{seed}"), "transformer",
                      nodes, method, clock, seed, (3.0, 2.0, 1.9), 33 + seed, None)
        plan = {"budget": {"S": S, "status": "capped", "runs": {}},
                "lr_at_S": {"4node-dense": {"chosen_lr": 0.002, "cell": tuned},
                            "4node-sparse": {"chosen_lr": None, "cell": None}}}
        with open(os.path.join(self.root, "transformer", "plan.json"), "w") as f:
            json.dump(plan, f)
        doc, text = self.claims()
        cells = doc["models"]["transformer"]["cells"]
        self.assertEqual(cells["4node-dense"]["name"], tuned)
        self.close(cells["4node-dense"]["final_dev_ce"]["mean"], 1.9)
        self.assertEqual(cells["4node-dense"]["test_bleu"]["mean"], 35)       # 34, 35, 36
        self.assertEqual(cells["4node-sparse"]["complete_seeds"], [])
        self.assertIn("| sparse-only | `transformer-4node-sparse-S300` | 0/3 | n/a | n/a | n/a | its "
                      "lr at S not chosen yet (v3.1 phase 1b) |", text)
        self.assertIn("`transformer-4node-sparse-S300`: its lr at S not chosen yet (phase 1b, v3.1)",
                      doc["claims"]["1a"]["missing"])
        self.assertEqual(doc["claims"]["1a"]["verdict"], "pending")
        self.assertIn(f"--ref4 {tuned} --ref1 transformer-1node-dense-equal-tokens-S{S}",
                      doc["models"]["transformer"]["speedup_vs_target_command"])
        r = self.speedup_vs_target()
        # the 1-node control is not tuned yet: no 1-node reference (its phase-1 run is not one)
        self.assertIn(f"references from it: `{tuned}`; no 1-node reference yet (its lr at S is "
                      "not chosen: v3.1 phase 1b); no rows yet for `4node-sparse` (lr at S not "
                      "chosen yet: v3.1 phase 1b); rows and lines: the cells at their lr at S",
                      r.stdout)
        self.assertIn(f"Reference `{tuned}` (3 seed(s))", r.stdout)
        self.assertIn("1-node reference `none`", r.stdout)
        self.assertNotIn(f"| transformer-4node-dense-S{S} |", r.stdout)
        self.assertNotIn(f"| transformer-4node-sparse-partial-k500-S{S} |", r.stdout)  # untuned
        # tuned at its phase-1 lr: the v3 name is the cell
        tokens = f"transformer-1node-dense-equal-tokens-S{S}"
        plan["lr_at_S"]["1node-dense-equal-tokens"] = {"chosen_lr": 0.004, "cell": tokens}
        with open(os.path.join(self.root, "transformer", "plan.json"), "w") as f:
            json.dump(plan, f)
        r = self.speedup_vs_target()
        self.assertIn(f"references from it: `{tuned}` and `{tokens}`; no rows yet for `4node-sparse` "
                      "(lr at S not chosen yet: v3.1 phase 1b); rows and lines", r.stdout)
        # speedup-map: the same references and rows, v3's principal target (x1.05 of the mean
        # final dev CE: 1.05 x 1.9 = 1.995)
        m = env.run_script(["scripts/analyze.py", "speedup-map", self.root, "--model",
                            "transformer", "--profile", self.profile, "--link-terms", "paper",
                            "--no-plot", "--out", os.path.join(self.work, "maps")])
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertIn(f"references from it: `{tuned}` and `{tokens}`; no rows yet for `4node-sparse` "
                      "(lr at S not chosen yet: v3.1 phase 1b); rows and lines", m.stdout)
        self.assertIn("Target: dev CE <= 1.9950 (x1.05 of 4-node dense's final dev CE 1.9000 "
                      f"(mean over its seeds)). References: 4-node dense `{tuned}`, 1 node "
                      f"`{tokens}`", m.stdout)
        self.assertNotIn(f"| transformer-4node-dense-S{S} |", m.stdout)
        # 4-node dense not tuned: no reference at all, rather than its run at the phase-1 lr
        plan["lr_at_S"]["4node-dense"] = {"chosen_lr": None, "cell": None}
        with open(os.path.join(self.root, "transformer", "plan.json"), "w") as f:
            json.dump(plan, f)
        r = self.speedup_vs_target()
        self.assertIn("(4-node dense's lr at S is not chosen yet (v3.1 phase 1b): no reference, "
                      "no targets; `--ref4 NAME` picks one)", r.stdout)
        self.assertNotIn("Reference `", r.stdout)
        m = env.run_script(["scripts/analyze.py", "speedup-map", self.root, "--model",
                            "transformer", "--profile", self.profile, "--no-plot", "--out",
                            os.path.join(self.work, "maps")])
        self.assertIn("(4-node dense's lr at S is not chosen yet", m.stdout)
        self.assertNotIn("Target:", m.stdout)

    def test_descendants_at_equal_bytes(self):
        """The demo row's pick. bytes_per_step: sparse+partial 100 (B* = 300 x 100 = 30000),
        PowerSGD 200 (read at update 150: between 3.0 at 100 and 2.5 at 200 -> 2.75), DiLoCo 10
        (t* 3000 >= S: its final 2.6), DeMo 120 (t* 250: between 2.4 and 2.2 -> 2.3, the best).
        The RNN lacks DiLoCo and DeMo: pending."""
        def set_bytes(cell, b):
            for seed in SEEDS:
                p = os.path.join(self.root, "transformer", f"transformer-{cell}-S{S}-s{seed}",
                                 "summary.json")
                with open(p) as f:
                    summary = json.load(f)
                summary["bytes_per_step"] = b
                with open(p, "w") as f:
                    json.dump(summary, f)
        for cell, method, curve in (("4node-diloco-h500", "diloco", (3.5, 3.0, 2.6)),
                                    ("4node-demo", "demo", (3.2, 2.4, 2.2))):
            for seed in SEEDS:
                write_run(os.path.join(self.root, "transformer", f"transformer-{cell}-S{S}-s{seed}"),
                          "transformer", 4, method, SPARSE, seed, curve, 30, None)
        for cell, b in (("4node-sparse-partial-k500", 100), ("4node-powersgd-r4", 200),
                        ("4node-diloco-h500", 10), ("4node-demo", 120)):
            set_bytes(cell, b)
        # the logged bytes per update, read beside the rule: PowerSGD 250 up to update 100 (a
        # dense warm-up), 50 after; DiLoCo 10, DeMo 120
        for cell, rate in (("4node-powersgd-r4", lambda s: 250 if s <= 100 else 50),
                           ("4node-diloco-h500", lambda s: 10), ("4node-demo", lambda s: 120)):
            for seed in SEEDS:
                log = os.path.join(self.root, "transformer", f"transformer-{cell}-S{S}-s{seed}",
                                   "log.jsonl")
                with open(log) as f:
                    rows = [json.loads(x) for x in f]
                with open(log, "w") as f:
                    f.write("".join(json.dumps(dict(r, bytes_sent=rate(r["step"]))) + "\n"
                                    for r in rows))
        doc, text = self.claims("--S-rnn", str(S))
        e = doc["descendants_equal_bytes"]["transformer"]
        self.assertEqual(e["missing"], [])
        self.close(e["bytes_reference"], 30000)
        psgd = e["cells"]["4node-powersgd-r4"]
        self.close(psgd["seeds"]["1"]["step"], 150)
        self.close(psgd["dev_ce"]["mean"], 2.75)
        self.close(e["cells"]["4node-diloco-h500"]["seeds"]["2"]["step"], S)
        self.close(e["cells"]["4node-diloco-h500"]["dev_ce"]["mean"], 2.6)
        self.close(e["cells"]["4node-demo"]["dev_ce"]["mean"], 2.3)
        self.assertEqual(e["best"], "4node-demo")
        # cumulative: PowerSGD has sent 30000 at update 100 + 5000 / 50 = 200 (dev CE 2.5), not
        # at the rule's 150; DiLoCo never (its final 2.6); DeMo at 250 as in the rule
        self.close(psgd["seeds"]["1"]["step_cumulative"], 200)
        self.close(psgd["dev_ce_cumulative"]["mean"], 2.5)
        self.close(e["cells"]["4node-diloco-h500"]["seeds"]["1"]["step_cumulative"], S)
        self.close(e["cells"]["4node-demo"]["dev_ce_cumulative"]["mean"], 2.3)
        self.assertEqual(e["best_cumulative"], "4node-demo")
        # bytes per update beside the quality at equal updates (issue 30's table)
        d = doc["descendants"]["transformer"]
        self.close(d["reference_bytes_per_step"], 100)
        self.close(d["cells"]["4node-demo"]["bytes_per_step"], 120)
        self.assertIn("| transformer | DeMo | ", text)
        self.assertIn("| 120 | 100 |", text)
        self.assertEqual(doc["descendants_equal_bytes"]["rnn"]["best"], None)
        self.assertIn("`rnn-4node-diloco-h500-S300`: s1 missing",
                      doc["descendants_equal_bytes"]["rnn"]["missing"])
        self.assertIn("| transformer | DeMo | 30000 | 250, 250, 250 | 2.300 +- 0.000 (n=3) **best** |", text)

    def test_claim2_better_than_dense_is_within(self):
        """One-sided: sparse+sum ending 5% below dense's dev CE (1.9 vs 2.0) restores
        convergence; sparse+error 12.5% above does not."""
        for seed in SEEDS:
            write_run(os.path.join(self.root, "transformer",
                                   f"transformer-4node-sparse-sum-k500-S{S}-s{seed}"),
                      "transformer", 4, "sparse+sum", SPARSE, seed, (3.5, 2.5, 1.9), 30, None)
        doc, text = self.claims("--S-rnn", str(S))
        cells = doc["claims"]["2"]["transformer"]["cells"]
        self.close(cells["4node-sparse-sum-k500"]["relative_to_dense"], -0.05)
        self.assertTrue(cells["4node-sparse-sum-k500"]["within"])
        self.assertFalse(cells["4node-sparse-error-k500"]["within"])
        self.assertIn("sparse+error 2.2500 (+12.50%, more than 2% above)", text)

    def test_value_at(self):
        series = [(100, 3.0), (200, 2.5), (300, 2.0)]
        self.assertIsNone(c3.value_at(series, 50))
        self.close(c3.value_at(series, 250), 2.25)
        self.close(c3.value_at(series, 300), 2.0)
        self.close(c3.value_at(series, 400), 2.0)
        self.assertIsNone(c3.value_at([], 100))

    def test_running_diverged_and_no_reset(self):
        # seed 3 of the RNN's sparse-only still running, seed 2 of its dense cell diverged, one
        # transformer partial run whose copies are not reset (after = before / 2)
        d = os.path.join(self.root, "rnn", f"rnn-4node-sparse-S{S}-s3")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        s.update(status="incomplete", reason="running (no clean end yet)")
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(s, f)
        d = os.path.join(self.root, "rnn", f"rnn-4node-dense-S{S}-s2")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        s.update(status="stopped", reason="non-finite loss at step 250")
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(s, f)
        log = os.path.join(self.root, "transformer",
                           f"transformer-4node-sparse-partial-k500-S{S}-s1", "log.jsonl")
        with open(log) as f:
            rows = [json.loads(x) for x in f]
        for r in rows:
            if "divergence" in r:
                r["divergence_after"] = r["divergence"] / 2
        with open(log, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
        shutil.rmtree(os.path.join(self.root, "rnn", f"rnn-4node-sparse-error-k500-S{S}-s1"))
        d = os.path.join(self.root, "transformer", f"transformer-4node-fedavg-k500-S{S}-s1")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        del s["test_bleu"]                                  # complete, but no test decode
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(s, f)
        doc, text = self.claims("--S-rnn", str(S))
        fedavg = doc["models"]["transformer"]["cells"]["4node-fedavg-k500"]
        self.assertEqual(fedavg["seeds"]["1"]["state"], "complete but without test_bleu")
        self.assertEqual((fedavg["complete_seeds"], fedavg["test_bleu"]["mean"]), ([2, 3], 29.5))
        self.assertIn("| 2/3 | 2.500 +- 0.000 (n=2) | 29.50 +- 0.71 (n=2) | n/a | s1 complete "
                      "but without test_bleu |", text)
        cl = doc["claims"]
        self.assertEqual(doc["models"]["rnn"]["cells"]["4node-sparse"]["seeds"]["3"]["state"],
                         "running")
        self.assertEqual(doc["models"]["rnn"]["cells"]["4node-dense"]["seeds"]["2"]["state"],
                         "diverged")
        # the dense cell's numbers over its complete seeds: BLEU (40 + 42) / 2
        self.assertEqual(doc["models"]["rnn"]["cells"]["4node-dense"]["test_bleu"]["mean"], 41)
        self.assertEqual(cl["1a"]["verdict"], "pending")
        self.assertEqual(cl["1a"]["diverged"], [f"rnn-4node-dense-S{S}-s2"])
        self.assertIn(f"`rnn-4node-sparse-S{S}`: s3 running", cl["1a"]["missing"])
        self.assertIn("decide by hand", text)
        self.assertEqual(cl["1a"]["models"]["transformer"]["holds"], True)   # still judged
        # claim 4: one run fails the reset, one run is missing
        run = cl["4"]["runs"][f"transformer-4node-sparse-partial-k500-S{S}-s1"]
        self.assertEqual((run["drift"], run["reset"], run["holds"]), (True, False, False))
        self.close(run["mean_after"], 0.5)
        self.assertEqual(cl["4"]["verdict"], "pending")
        self.assertEqual(cl["4"]["missing"], [f"`rnn-4node-sparse-error-k500-S{S}`: s1 missing"])
        self.assertTrue(re.search(r"`transformer-4node-sparse-partial-k500-S300-s1` \| 3 \| "
                                  r"1\.0000 \| 0\.5000 \| 0\.5000 \| 0\.7500 \| no \|", text))
        # with the missing run back, claim 4 is "partly" (17 of 18 runs hold)
        nodes, method, clock, curves, bleu, _ = RNN["4node-sparse-error-k500"]
        write_run(os.path.join(self.root, "rnn", f"rnn-4node-sparse-error-k500-S{S}-s1"), "rnn",
                  nodes, method, clock, 1, curves[1], 39, None)
        doc, _ = self.claims("--S-rnn", str(S))
        self.assertEqual(doc["claims"]["4"]["verdict"], "partly")


if __name__ == "__main__":
    env.main()
