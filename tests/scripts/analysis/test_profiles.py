#!/usr/bin/env python3
"""slanalysis.profiles: hardware profiles, the step compute c, and bad profiles."""
import json
import os

import analysis_env as env
from slanalysis.flops import flops_per_step
from slanalysis.profiles import (load_profile, load_profiles, step_compute_s,
                                 without_selection_cost)
from test_flops import TCFG


class Profiles(env.Case):
    def test_compute(self):
        prof = load_profile(env.fix_profile(self.work))
        # a seconds_per_step entry matches d_model 4
        self.close(step_compute_s(prof, TCFG)[0], 0.05)
        self.close(step_compute_s(prof, TCFG, scale=2.0)[0], 0.1)
        # no match (d_model 8): overhead_s[transformer] 0.5 + FLOPs / 28800
        cfg = json.loads(json.dumps(TCFG))
        cfg["model"]["d_model"] = 8
        self.close(step_compute_s(prof, cfg, 10)[0], 0.5 + flops_per_step(cfg, 10)[0] / 28800.0)

    def test_without_selection_cost(self):
        prof = load_profile(env.fix_profile(self.work))
        free = without_selection_cost(prof)
        self.assertEqual(free["selection"], {"mode": "none"})
        self.assertEqual(free["name"], prof["name"] + ", selection free")
        self.assertNotEqual(prof["selection"], {"mode": "none"})  # the original is untouched
        self.close(step_compute_s(free, TCFG)[0], 0.05)  # c unchanged

    def test_defaults_and_shipped(self):
        names = [os.path.basename(p["path"]) for p in load_profiles(None)]
        self.assertEqual(names, sorted(os.listdir(os.path.join(env.REPO, "configs", "hardware"))))

    def test_bad_profiles(self):
        cases = [({"source": "x", "sustained_flops": 1.0}, "non-empty 'name'"),
                 ({"name": "x", "source": "x"}, "sustained_flops or seconds_per_step"),
                 ({"name": "x", "source": "x", "sustained_flops": 1.0, "selection": {"mode": "ratio"}},
                  "selection.mode"),
                 ({"name": "x", "source": "x", "sustained_flops": 1.0, "selection": {"mode": "modeled"}},
                  "select_values_per_s")]
        for obj, message in cases:
            path = os.path.join(self.work, "p.json")
            with open(path, "w") as f:
                json.dump(obj, f)
            with self.assertRaises(ValueError) as ctx:
                load_profile(path)
            self.assertIn(message, str(ctx.exception))
            self.assertIn(path, str(ctx.exception))
        with open(path, "w") as f:
            f.write("{")
        with self.assertRaisesRegex(ValueError, "not JSON"):
            load_profile(path)


if __name__ == "__main__":
    env.main()
