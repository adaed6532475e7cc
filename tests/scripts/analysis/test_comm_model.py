#!/usr/bin/env python3
"""slanalysis.comm_model: logs of comm model 1 (no size exchange in a variable all-gather's
modeled time) brought to model 2, by hand values.

A 4-node sparse run: the size exchange is an all-gather of 8 bytes per node, 3 hops:
  1gbe   3 * 64 bits / 1e9  + 3 * 50 us = 1.92e-7 + 1.5e-4  = 1.50192e-4 s per step
  10gbe  3 * 64 / 1e10      + 3 * 20 us = 1.92e-8 + 6e-5    = 6.00192e-5
  ib100  3 * 64 / 1e11      + 3 * 2 us  = 1.92e-9 + 6e-6    = 6.00192e-6
  configured {bandwidth_gbps 0.5, latency_us 10, efficiency 0.8, overhead_us 5}:
         3 * 64 / (0.8 * 0.5e9) + 3 * 15 us = 4.8e-7 + 4.5e-5 = 4.548e-5"""
import json
import os

import analysis_env as env
from slanalysis.comm_model import gap_per_step, upgrade_run
from slanalysis.experiment import Experiment

GAP = {"1gbe": 1.50192e-4, "10gbe": 6.00192e-5, "ib100": 6.00192e-6, "configured": 4.548e-5}
CUSTOM = {"bandwidth_gbps": 0.5, "latency_us": 10, "efficiency": 0.8, "overhead_us": 5}


def times(v):
    return {k: v for k in GAP}


class CommModel(env.Case):
    def test_gap_by_hand(self):
        gap = gap_per_step("sparse+partial", 4, {"distributed": {"network": CUSTOM}})
        self.assertEqual(set(GAP), set(gap))
        for k, v in GAP.items():
            self.assertAlmostEqual(v, gap[k], delta=1e-15, msg=k)
        self.assertAlmostEqual(1.50192e-4, gap_per_step("demo", 4, {})["1gbe"], delta=1e-15)
        # a preset name (and the default, 10gbe) as the configured network
        self.assertAlmostEqual(GAP["1gbe"], gap_per_step("sparse", 4, {"distributed": {
            "network": "1gbe"}})["configured"], delta=1e-15)
        self.assertAlmostEqual(GAP["10gbe"], gap_per_step("sparse", 4, {"distributed": {}})[
            "configured"], delta=1e-15)
        self.assertNotIn("configured", gap_per_step("sparse", 4, {}))  # no config: unknown
        for method, nodes in (("dense", 4), ("fedavg", 4), ("powersgd", 4), ("diloco", 4),
                              ("sparse", 1), ("sparse", None)):
            self.assertEqual({}, gap_per_step(method, nodes, {}), (method, nodes))

    def test_old_rows_gain_step_times_gap_new_rows_stay(self):
        cfg = {"distributed": {"network": CUSTOM}}
        log = [{"step": 10, "modeled_time_s": times(1.0), "modeled_comm_s": times(0.01),
                "modeled_step_s": times(0.1),
                "strategy": {"network": "custom", "modeled_comm_s": {
                    "1gbe": 0.01, "10gbe": 0.01, "ib100": 0.01, "custom": 0.01}}},
               {"step": 20, "modeled_time_s": times(3.0), "comm_model": 2}]
        valid = [{"step": 10, "modeled_time_s": times(1.0)}]
        summary = {"steps": 20, "modeled_time_s": times(3.0)}
        self.assertEqual(3, upgrade_run(cfg, "sparse+sum", 4, log, valid, summary))
        for k, g in GAP.items():
            self.assertAlmostEqual(1.0 + 10 * g, log[0]["modeled_time_s"][k], delta=1e-12)
            self.assertAlmostEqual(0.01 + g, log[0]["modeled_comm_s"][k], delta=1e-12)
            self.assertAlmostEqual(0.1 + g, log[0]["modeled_step_s"][k], delta=1e-12)
            self.assertAlmostEqual(0.01 + g, log[0]["strategy"]["modeled_comm_s"][
                "custom" if k == "configured" else k], delta=1e-12)
            self.assertEqual(3.0, log[1]["modeled_time_s"][k])  # written by a model-2 binary
            self.assertAlmostEqual(1.0 + 10 * g, valid[0]["modeled_time_s"][k], delta=1e-12)
            self.assertAlmostEqual(3.0 + 20 * g, summary["modeled_time_s"][k], delta=1e-12)
        self.assertTrue(all(r["comm_model"] == 2 for r in log + valid + [summary]))
        # idempotent: a second pass finds nothing old
        self.assertEqual(0, upgrade_run(cfg, "sparse+sum", 4, log, valid, summary))
        self.assertAlmostEqual(1.0 + 10 * GAP["1gbe"], log[0]["modeled_time_s"]["1gbe"], delta=1e-12)

    def test_skipped_steps_custom_network_and_unknowns(self):
        cfg = {"distributed": {"network": CUSTOM}}
        # summary: 20 steps of which 2 skipped (no exchange): 18 gaps; a note for the rows
        notes = []
        log = [{"step": 10, "modeled_time_s": times(1.0),
                "strategy": {"network": "custom",
                             "modeled_comm_s": {"1gbe": 0.5, "10gbe": 0.5, "ib100": 0.5,
                                                "custom": 0.5}}}]
        summary = {"steps": 20, "skipped_steps": 2, "modeled_time_s": times(3.0)}
        upgrade_run(cfg, "sparse", 4, log, [], summary, note=notes.append)
        self.assertAlmostEqual(3.0 + 18 * GAP["1gbe"], summary["modeled_time_s"]["1gbe"],
                               delta=1e-12)
        self.assertEqual(1, len(notes))
        self.assertIn("2 skipped steps", notes[0])
        # node 0's record keys the configured network by its name
        st = log[0]["strategy"]["modeled_comm_s"]
        self.assertAlmostEqual(0.5 + GAP["configured"], st["custom"], delta=1e-12)
        self.assertAlmostEqual(0.5 + GAP["ib100"], st["ib100"], delta=1e-12)
        # no config: `configured` is left alone (not guessed)
        rows = [{"step": 10, "modeled_time_s": times(1.0)}]
        upgrade_run({}, "sparse", 4, rows, [], None)
        self.assertEqual(1.0, rows[0]["modeled_time_s"]["configured"])
        self.assertAlmostEqual(1.0 + 10 * GAP["1gbe"], rows[0]["modeled_time_s"]["1gbe"],
                               delta=1e-12)
        # unknown method or node count: nothing changed, nothing marked
        for method, nodes in (("?", 4), (None, 4), ("sparse", None)):
            rows = [{"step": 10, "modeled_time_s": times(1.0)}]
            self.assertEqual(0, upgrade_run(cfg, method, nodes, rows, [], None))
            self.assertNotIn("comm_model", rows[0])

    def test_old_rows_after_new_ones_are_noted(self):
        notes = []
        log = [{"step": 10, "modeled_time_s": times(1.0), "comm_model": 2},
               {"step": 20, "modeled_time_s": times(2.0)}]
        upgrade_run({}, "demo", 4, log, [], None, note=notes.append)
        self.assertEqual(1, len(notes))
        self.assertIn("older binary", notes[0])
        notes.clear()
        upgrade_run({}, "dense", 4, [{"step": 10, "comm_model": 2}, {"step": 20}], [], None,
                    note=notes.append)
        self.assertEqual([], notes)  # nothing to count twice for dense

    def test_dense_rows_unchanged(self):
        log = [{"step": 10, "modeled_time_s": times(1.0)}]
        self.assertEqual(0, upgrade_run({}, "dense", 4, log, [], None))
        self.assertEqual(times(1.0), log[0]["modeled_time_s"])

    def test_experiment_reads_old_logs_upgraded(self):
        d = os.path.join(self.work, "run")
        os.makedirs(d)
        with open(os.path.join(d, "log.jsonl"), "w") as f:
            f.write(json.dumps({"step": 100, "method": "sparse", "nodes": 4,
                                "modeled_time_s": times(2.0)}) + "\n")
        with open(os.path.join(d, "valid.jsonl"), "w") as f:
            f.write(json.dumps({"step": 100, "modeled_time_s": times(2.0), "bleu": 1.0}) + "\n")
        e = Experiment(d, self.work, env.silent)
        self.assertAlmostEqual(2.0 + 100 * GAP["1gbe"], e.log[0]["modeled_time_s"]["1gbe"],
                               delta=1e-12)
        self.assertAlmostEqual(2.0 + 100 * GAP["ib100"], e.valid[0]["modeled_time_s"]["ib100"],
                               delta=1e-12)
        # no config.json: `configured` left alone
        self.assertEqual(2.0, e.valid[0]["modeled_time_s"]["configured"])
        # a config without distributed.network: run-experiment's default, 10gbe
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"distributed": {"method": "sparse"}}, f)
        e = Experiment(d, self.work, env.silent)
        self.assertAlmostEqual(2.0 + 100 * GAP["10gbe"], e.valid[0]["modeled_time_s"]["configured"],
                               delta=1e-12)


if __name__ == "__main__":
    env.main()
