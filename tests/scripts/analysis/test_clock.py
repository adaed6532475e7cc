#!/usr/bin/env python3
"""slanalysis.clock: the virtual clock of one run on make_vclock_fixtures.py's runs (constant
per-step compute C, ring bytes X, hops Y and selection SEL, logged every 10 steps)."""
import os

import analysis_env as env
import make_vclock_fixtures
from slanalysis.clock import RunClock, piecewise_sum
from slanalysis.experiment import Experiment
from slanalysis.network import PRESETS, Network
from slanalysis.notes import silent


class Clock(env.Case):
    def setUp(self):
        super().setUp()
        root = make_vclock_fixtures.write(self.work)
        run = lambda name: Experiment(os.path.join(root, name), root, silent)  # noqa: E731
        self.partial = RunClock(run("tf-4node-partial-s1"))    # C 0.1, X 1e5, Y 9, SEL 0.01
        self.one = RunClock(run("tf-1node-dense"))

    def test_cumulative(self):
        # exact at a logged step: 200 x (0.1, 1e5, 9)
        for got, want in zip(self.partial.cumulative(200), (20.0, 2e7, 1800.0)):
            self.close(got, want, 1e-7)
        # linear between logged steps 200 and 210, also at a fractional step
        for got, want in zip(self.partial.cumulative(205), (20.5, 2.05e7, 1845.0)):
            self.close(got, want, 1e-7)
        for got, want in zip(self.partial.cumulative(202.5), (20.25, 2.025e7, 1822.5)):
            self.close(got, want, 1e-7)
        # past the last step (300): the last interval's rate goes on
        self.close(self.partial.cumulative(310)[1], 3.1e7, 1e-7)
        self.assertEqual((self.partial.nodes, self.partial.last_step()), (4, 300))
        self.close(self.partial.measured_compute_per_step(), 0.1)
        self.close(self.partial.tokens_per_node_step(), 10.0)  # tokens s * 10 * 4 over 4 nodes

    def test_selection(self):
        # each logged value stands for the steps since the previous log line
        pts = [(10, 0.004), (20, 0.006)]
        self.close(piecewise_sum(pts, 15), 0.04 + 0.006 * 5)   # 0.07
        self.close(piecewise_sum(pts, 20), 0.1)
        self.close(piecewise_sum(pts, 25), 0.13)                # the last value extends
        self.close(self.partial.selection_s(200, {"mode": "measured"}), 2.0)
        # modeled: P / select + N * pairs / scatter per step = 500/1e4 + 4*5/1e3 = 0.07 per step
        self.close(self.partial.selection_s(100, {"mode": "modeled", "select_values_per_s": 1e4,
                                                  "scatter_values_per_s": 1e3}), 7.0)
        self.assertEqual(self.one.selection_s(100, {"mode": "measured"}), 0.0)
        # "none": free, whatever was logged (the lower bound)
        self.assertEqual(self.partial.selection_s(200, {"mode": "none"}), 0.0)

    def test_selection_clock(self):
        # the fixture's strategy rows name no clock: wall seconds (binaries before 2026-12-07)
        self.assertEqual(self.partial.sel_clock, "wall")
        self.assertIsNone(self.one.sel_clock)  # dense: nothing selected, no clock
        run = type("Run", (), {})()
        run.config, run.valid, run.parameters = {"cluster": {"nodes": 4}}, [], None
        run.log = [{"step": s, "strategy": {"compress_s": 0.003, "decompress_s": 0.001,
                                           "compress_clock": "thread_cpu"}} for s in (10, 20)]
        clock = RunClock(run)
        self.assertEqual(clock.sel_clock, "thread_cpu")
        self.close(clock.selection_s(20, {"mode": "measured"}), 0.08)  # 20 steps x 0.004

    def test_time(self):
        # t 200, c 0.05, 10 Gbit/s, 10 us: 10 + 2 + 2e7 * 8e-10 + 1800 * 1e-5 = 12.034
        tot, parts = self.partial.time(200, 0.05, Network("x", 10.0, 10.0), {"mode": "measured"})
        self.close(tot, 12.034)
        self.close(parts["bandwidth"], 0.016)
        self.close(parts["latency"], 0.018)
        # one node: no communication, 600 c
        self.close(self.one.time(600, 0.05, PRESETS["1gbe"])[0], 30.0)


if __name__ == "__main__":
    env.main()
