#!/usr/bin/env python3
"""slanalysis.virtual_time: the virtual seconds plot.py --profile puts on every row, on
make_vclock_fixtures.py's runs with the "fix" profile (c 0.05) on 1gbe (1 Gbit/s, 50 us)."""
import os

import analysis_env as env
import make_vclock_fixtures
from slanalysis.network import PRESETS
from slanalysis.notes import Notes
from slanalysis.profiles import load_profile
from slanalysis.virtual_time import annotate


class VirtualTime(env.Case):
    def test_annotate(self):
        root = make_vclock_fixtures.write(self.work)
        os.remove(os.path.join(root, "tf-4node-sparse", "config.json"))
        exps = {e.name: e for e in env.experiments(root)}
        notes = Notes("test")
        annotate(exps.values(), load_profile(env.fix_profile(self.work)), PRESETS["1gbe"], "_v", notes)
        row = lambda name, step: next(r for r in exps[name].valid if r["step"] == step)  # noqa: E731
        # dense at 300: 300*0.05 + 300*2e6*8e-9 + 300*12*5e-5 = 15 + 4.8 + 0.18 = 19.98
        self.close(row("tf-4node-dense", 300)["_v"], 19.98)
        # partial s1 at 200: 10 + SEL 2 + 200*1e5*8e-9 + 200*9*5e-5 = 10 + 2 + 0.16 + 0.09 = 12.25
        self.close(row("tf-4node-partial-s1", 200)["_v"], 12.25)
        # log rows too: partial s1 at step 10 = 0.5 + 0.1 + 0.008 + 0.0045 = 0.6125
        self.close(exps["tf-4node-partial-s1"].log[0]["_v"], 0.6125)
        # one node at 600: 600 * 0.05
        self.close(row("tf-1node-dense", 600)["_v"], 30.0)
        # without its config the run has no model to match the profile: noted, no times
        self.assertNotIn("_v", row("tf-4node-sparse", 300))
        self.assertIn("tf-4node-sparse: no virtual clock for profile fix", " ".join(notes.lines))


if __name__ == "__main__":
    env.main()
