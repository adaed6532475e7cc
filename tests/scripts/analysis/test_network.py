#!/usr/bin/env python3
"""slanalysis.network: the ring model's formula and its inverse on the trainer's presets."""
import analysis_env as env
import make_vclock_fixtures
import json
import os
import tempfile

from slanalysis.network import (PAPER_TERMS, PRESETS, Network, link_terms, ring_comm_s,
                                seconds_per_byte, solve_cxy, with_link_terms)


class RingModel(env.Case):
    def test_presets_match_the_trainer(self):
        # lib/distributed/ring_network_model.cpp and the fixtures' writer use the same presets
        self.assertEqual({k: (n.gbps, n.latency_us) for k, n in PRESETS.items()},
                         make_vclock_fixtures.PRESETS)
        self.assertEqual(PRESETS["1gbe"].name, "1gbe")

    def test_ring_comm(self):
        self.close(seconds_per_byte(1.0), 8e-9)
        # 2e7 ring bytes on 10 Gbit/s: 2e7 * 8 / 1e10 = 0.016 s; 1800 hops x 10 us = 0.018 s
        bw, lat = ring_comm_s(2e7, 1800, Network("x", 10.0, 10.0))
        self.close(bw, 0.016)
        self.close(lat, 0.018)

    def test_solve_cxy(self):
        # per step C 0.1 s, X 1e6 ring bytes, Y 9 hops, after 20 steps: C 2, X 2e7, Y 180
        C, X, Y = solve_cxy(make_vclock_fixtures.modeled(20, 0.1, 1e6, 9))
        self.close(C, 2.0)
        self.close(X, 2e7, 1e-7)
        self.close(Y, 180.0)
        self.assertIsNone(solve_cxy({"1gbe": 1.0, "10gbe": 1.0}))

    def test_measured_link_terms(self):
        # eta 0.8 divides the bandwidth term, o = 30 us adds to every hop's latency
        net = with_link_terms(Network("x", 10.0, 10.0), link_terms("paper")._replace(
            efficiency=0.8, overhead_us=30.0))
        bw, lat = ring_comm_s(2e7, 1800, net)
        self.close(bw, 0.016 / 0.8)
        self.close(lat, 1800 * 40e-6)
        self.assertEqual(ring_comm_s(2e7, 1800, with_link_terms(net, PAPER_TERMS)),
                         ring_comm_s(2e7, 1800, Network("x", 10.0, 10.0)))

    def test_link_terms_from_a_validation_file(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "validation.json")
            with open(p, "w") as f:
                json.dump({"model": {"eta": 0.81, "overhead_s": 2.5e-4}}, f)
            t = link_terms(p)
            self.close(t.efficiency, 0.81)
            self.close(t.overhead_us, 250.0)
            self.assertIn("eta 0.810", t.describe())
            with open(p, "w") as f:
                json.dump({"rows": []}, f)
            with self.assertRaises(ValueError) as e:
                link_terms(p)
            self.assertIn("model.eta", str(e.exception))
        self.assertEqual(link_terms("paper"), PAPER_TERMS)
        self.assertIn("PAPER.md", PAPER_TERMS.describe())


if __name__ == "__main__":
    env.main()
