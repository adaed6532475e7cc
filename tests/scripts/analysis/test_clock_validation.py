#!/usr/bin/env python3
"""slanalysis.clock_validation on synthetic runs whose communication follows the model
t = X * 8 / (eta B) + Y o with eta = 0.8, o = 100 us, on a 100 Mbit/s loopback shared by
N = 2 ranks (B = 100e6 / 8 / 2 = 6.25e6 bytes/s per node):
  dense-like:  X = 1e6 bytes, Y = 2 hops per step: ring model 1e6 / 6.25e6 = 0.16 s,
               measured 0.16 / 0.8 + 2e-4 = 0.2002 s (ratio 0.16 / 0.2002 = 0.79920)
  sparse-like: X = 1e4, Y = 10: ring model 0.0016 s, measured 0.002 + 0.001 = 0.003 s
The least-squares fit must recover eta = 0.8 and o = 1e-4 exactly (two runs, two unknowns)."""
import json
import os

import analysis_env as env
from slanalysis.clock_validation import ClockRun, fit, load_runs, predicted_wall, row, within

PRESETS = {"1gbe": (1e9, 50e-6), "10gbe": (1e10, 20e-6), "ib100": (1e11, 2e-6)}


def write_run(root, name, N, X, Y, steps=10, compute=0.05, rate=("100mbit", 100e6), cpu=0.0):
    """cpu: seconds per step the CPU adds on top of the link (a loopback faster than the CPU)."""
    d = os.path.join(root, "runs", name)
    os.makedirs(d)
    B = rate[1] / 8 / N
    comm = X / B / 0.8 + Y * 1e-4 + cpu
    with open(os.path.join(d, "log.jsonl"), "w") as f:
        for s in range(1, steps + 1):
            modeled = {k: X * 8 / bw + Y * a for k, (bw, a) in PRESETS.items()}
            modeled["configured"] = X / B
            # steps 1-5 (connection set-up) are 10x slower and must be left out
            c = comm * (10 if s <= 5 else 1)
            f.write(json.dumps({"step": s, "modeled_comm_s": modeled, "comm_min_s": c,
                                "comm_s": c * 1.1, "compute_s": compute,
                                "wall_s": s * (compute + comm)}) + "\n")
    json.dump({"nodes": N, "status": "complete"}, open(os.path.join(d, "summary.json"), "w"))
    json.dump({"rate": rate[0], "rate_bits_per_s": rate[1], "bytes": int(N * X * steps * 1.05)},
              open(os.path.join(d, "counters.json"), "w"))


class ClockValidation(env.Case):
    def setUp(self):
        super().setUp()
        write_run(self.work, "transformer-dense-n2-100mbit", 2, 1e6, 2)
        write_run(self.work, "transformer-sparse-n2-100mbit", 2, 1e4, 10)
        self.runs = load_runs(self.work, note=lambda m: None)

    def test_means_and_fit(self):
        dense = next(r for r in self.runs if r.method == "dense")
        a, y, m, mx = dense.means()
        self.close(a, 0.16, 1e-9, "bandwidth seconds")
        self.close(y, 2.0, 1e-6, "hops")
        self.close(m, 0.2002, 1e-9, "measured (steps 6-10 only)")
        self.close(mx, 0.2002 * 1.1, 1e-9)
        eta, o = fit(self.runs)
        self.close(eta, 0.8, 1e-6, "eta")
        self.close(o, 1e-4, 1e-6, "overhead")
        r = row(dense, eta, o, compute_s=0.05)
        self.close(r["ratio_ring_model"], 0.16 / 0.2002, 1e-6)
        self.close(r["ratio_fitted_model"], 1.0, 1e-6)
        self.assertTrue(within(r["ratio_fitted_model"]))
        self.assertFalse(within(r["ratio_ring_model"]))  # 0.799: outside +-20%
        # whole run: 10 steps x (0.05 compute + 0.2002 comm) = 2.502 s predicted, the same
        # measured (the synthetic wall has no slow start)
        self.close(predicted_wall(dense, 0.05, eta, o), 2.502, 1e-6)
        self.close(r["measured_wall_s"], 2.502, 1e-6)

    def test_one_run_fits_efficiency_only(self):
        dense = [r for r in self.runs if r.method == "dense"]
        eta, o = fit(dense)
        # a single run cannot separate the terms: o = 0, eta = 0.16 / 0.2002
        self.assertEqual(o, 0.0)
        self.close(eta, 0.16 / 0.2002, 1e-9)

    def test_the_command_fits_where_the_link_paces(self):
        # a 10gbit run paced by the CPU (5 ms per step more than the link needs) is checked,
        # not fitted: eta and o come out of the two 100mbit runs unchanged
        write_run(self.work, "transformer-dense-n2-10gbit", 2, 1e6, 2, rate=("10gbit", 1e10),
                  cpu=5e-3)
        from slanalysis.commands import clock_validation
        out = os.path.join(self.work, "v.json")
        rc = clock_validation.main([self.work, "--out-json", out, "--out-md",
                                    os.path.join(self.work, "v.md"), "--figure", "/dev/null"])
        self.assertEqual(rc, 0)
        with open(out) as f:
            doc = json.load(f)
        self.close(doc["model"]["eta"], 0.8, 1e-6, "eta")
        self.close(doc["model"]["overhead_s"], 1e-4, 1e-6, "overhead")
        sets = {r["run"]: r["set"] for r in doc["rows"]}
        self.assertEqual(sets["transformer-dense-n2-10gbit"], "check")
        self.assertEqual(sets["transformer-dense-n2-100mbit"], "fit")
        # with the 10gbit run in the fit, the terms move
        rc = clock_validation.main([self.work, "--out-json", out, "--fit-rates",
                                    "100mbit,10gbit", "--out-md",
                                    os.path.join(self.work, "v.md"), "--figure", "/dev/null"])
        self.assertEqual(rc, 0)
        with open(out) as f:
            self.assertNotAlmostEqual(json.load(f)["model"]["eta"], 0.8, places=3)
        # a rate named but never run is an error that names it (a typo must not drop a rate)
        r = env.run_script(["scripts/analyze.py", "clock-validation", self.work, "--fit-rates",
                            "100mbit,1gbt", "--out-json", out, "--figure", "/dev/null"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("'1gbt'", r.stderr)
        r = env.run_script(["scripts/analyze.py", "clock-validation", self.work, "--profile",
                            self.work + "/none.json", "--out-json", out])
        self.assertEqual(r.returncode, 2)
        self.assertIn("none.json", r.stderr)

    def test_a_negative_overhead_is_not_fitted(self):
        # runs faster per hop than the bandwidth term alone says (o would come out < 0):
        # o = 0 and eta from the bandwidth term alone
        write_run(self.work, "transformer-fedavg-n2-100mbit", 2, 1e4, 400)
        runs = [r for r in load_runs(self.work, note=lambda m: None) if r.method != "sparse"]
        for r in runs:  # remove the per-hop term from the measurement of the hop-heavy run
            if r.method == "fedavg":
                r.steps = [s[:3] + (s[3] - 400 * 1.02e-4,) + s[4:] for s in r.steps]
        eta, o = fit(runs)
        self.assertEqual(o, 0.0)
        self.assertGreater(eta, 0.0)


if __name__ == "__main__":
    import unittest
    unittest.main()
