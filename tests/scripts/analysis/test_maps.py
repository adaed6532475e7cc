#!/usr/bin/env python3
"""slanalysis.maps: the map grid and the table at the shipped profiles, on
make_vclock_fixtures.py's runs."""
import analysis_env as env
import make_vclock_fixtures
from slanalysis.maps import analyse, comm_per_step, logspace, profile_rows, speedup_grid
from slanalysis.network import PRESETS, LinkTerms, with_link_terms
from slanalysis.profiles import load_profile
from slanalysis.variants import group_variants


class Maps(env.Case):
    def setUp(self):
        super().setUp()
        self.variants = group_variants(env.experiments(make_vclock_fixtures.write(self.work)))["transformer"]
        self.prof = load_profile(env.fix_profile(self.work))

    def test_logspace(self):
        for got, want in zip(logspace(0.1, 1000.0, 5), (0.1, 1.0, 10.0, 100.0, 1000.0)):
            self.close(got, want)

    def test_grid(self):
        d4, d1, hits, fsel, cmeas = analyse(self.variants, "dev_ce", 3.0)
        self.assertEqual((d4.name, d1.name), ("tf-4node-dense", "tf-1node-dense"))
        self.close(cmeas, 0.1)
        self.close(fsel["tf-4node-partial"], 0.1)
        self.assertEqual(fsel["tf-4node-dense"], 0.0)
        # c 0.1, 1 Gbit/s, latency 0: dense4 300*0.1 + 6e8*8e-9 = 34.8; partial
        # 250*0.1*1.1 + 2.5e7*8e-9 = 27.7 -> 1.2563x; 1 node 600*0.1 = 60 -> 2.1661x
        h = hits["tf-4node-partial"]
        g = speedup_grid(h, hits["tf-4node-dense"], [0.1], [1.0], 0.0, fsel["tf-4node-partial"], 0.0)
        self.close(g[0][0], 34.8 / 27.7)
        g = speedup_grid(h, hits["tf-1node-dense"], [0.1, 1.0], [1.0], 0.0, 0.1, 0.0)
        self.close(g[0][0], 60.0 / 27.7)
        # c 1.0: 600 / (250*1.1 + 0.2) = 600 / 275.2
        self.close(g[1][0], 600.0 / 275.2)

    def test_profile_rows(self):
        d4, d1, hits, _, _ = analyse(self.variants, "dev_ce", 3.0)
        # dense comm per step on 1gbe: 2e6*8e-9 + 12*5e-5 = 0.0166 s
        self.close(comm_per_step(d4, PRESETS["1gbe"]), 0.0166)
        # with measured link terms eta 0.5, o 50 us: 2e6*8e-9/0.5 + 12*(50+50)e-6 = 0.0332 s
        measured = with_link_terms(PRESETS["1gbe"], LinkTerms(0.5, 50.0, "validation.json"))
        self.close(comm_per_step(d4, measured), 0.0332)
        rows = profile_rows("transformer", self.variants, d4, d1, hits, [self.prof], [PRESETS["1gbe"]])
        # fix (c 0.05): dense4 15 + 4.8 + 300*12*5e-5 = 19.98; partial 15.3125 (test_hits)
        # -> 19.98 / 15.3125 = 1.30x; 1 node 30 -> 1.96x; share 0.0166 / 0.0666 = 25%.
        # x2 (c 0.1): 34.98 / 27.8125 = 1.26x; 60 / 27.8125 = 2.16x; 0.0166 / 0.1166 = 14%.
        # x0.5 (c 0.025): dense4 7.5 + 4.8 + 0.18 = 12.48; partial (5 + 2 + 0.16 + 0.09 = 7.25,
        # 7.5 + 3 + 0.24 + 0.135 = 10.875) mean 9.0625 -> 1.38x; 15 / 9.0625 = 1.66x;
        # 0.0166 / 0.0416 = 40%.
        # Only multi-node variants that reach the target get rows: dense and partial.
        self.assertIn(["transformer", "fix", "50.00", "1gbe", "25%", "tf-4node-partial", "15.3",
                       "1.30x", "1.96x"], rows)
        self.assertIn(["transformer", "fix x2", "100.00", "1gbe", "14%", "tf-4node-partial", "27.8",
                       "1.26x", "2.16x"], rows)
        self.assertIn(["transformer", "fix x0.5", "25.00", "1gbe", "40%", "tf-4node-partial", "9.1",
                       "1.38x", "1.66x"], rows)
        self.assertEqual(len(rows), 3 * 2)


if __name__ == "__main__":
    env.main()
