#!/usr/bin/env python3
"""slanalysis.variants: runs that differ by a -s<seed> suffix are one variant."""
import json
import os
import shutil

import analysis_env as env
import make_vclock_fixtures
from slanalysis.variants import group_variants, variant_name


class Variants(env.Case):
    def test_names(self):
        self.assertEqual(variant_name("suite/tf-4node-partial-s12"), "tf-4node-partial")
        self.assertEqual(variant_name("tf-4node-partial-seed3"), "tf-4node-partial")
        self.assertEqual(variant_name("tf-4node-dense-2xS"), "tf-4node-dense-2xS")

    def test_grouping(self):
        root = make_vclock_fixtures.write(self.work)
        groups = group_variants(env.experiments(root))
        self.assertEqual(list(groups), ["transformer"])
        v = {x.name: x for x in groups["transformer"]}
        self.assertEqual(sorted(v), ["tf-1node-dense", "tf-4node-dense", "tf-4node-partial",
                                     "tf-4node-sparse"])
        p = v["tf-4node-partial"]
        self.assertEqual((p.nodes, p.method, p.steps, len(p.runs)), (4, "sparse+partial", 300, 2))
        # dev CE per seed (make_vclock_fixtures.RUNS)
        self.assertEqual(p.values("dev_ce"), [[(100, 4.5), (200, 3.0), (300, 2.8)],
                                              [(100, 4.6), (200, 3.2), (300, 2.9)]])

    def test_running_seed_left_out(self):
        # a seed still running is left out of a variant that has complete seeds
        root = make_vclock_fixtures.write(self.work)
        part = os.path.join(root, "tf-4node-partial-s3")
        shutil.copytree(os.path.join(root, "tf-4node-partial-s1"), part)
        with open(os.path.join(part, "summary.json")) as f:
            summ = json.load(f)
        summ["status"] = "incomplete"
        with open(os.path.join(part, "summary.json"), "w") as f:
            json.dump(summ, f)
        v = {x.name: x for x in group_variants(env.experiments(root))["transformer"]}
        self.assertEqual([os.path.basename(r.name) for r in v["tf-4node-partial"].runs],
                         ["tf-4node-partial-s1", "tf-4node-partial-s2"])

    def test_diverged_seed_kept(self):
        # a seed stopped on a non-finite value is finished: it stays in its variant (its curve
        # up to the stop), so a cell is not averaged over the seeds that survived
        root = make_vclock_fixtures.write(self.work)
        for name, status, reason in (("s3", "stopped", "non-finite loss or gradient at step 250"),
                                     ("s4", "stopped", "signal SIGTERM")):
            part = os.path.join(root, f"tf-4node-partial-{name}")
            shutil.copytree(os.path.join(root, "tf-4node-partial-s1"), part)
            with open(os.path.join(part, "summary.json")) as f:
                summ = json.load(f)
            summ.update(status=status, reason=reason)
            with open(os.path.join(part, "summary.json"), "w") as f:
                json.dump(summ, f)
        v = {x.name: x for x in group_variants(env.experiments(root))["transformer"]}
        self.assertEqual([os.path.basename(r.name) for r in v["tf-4node-partial"].runs],
                         ["tf-4node-partial-s1", "tf-4node-partial-s2", "tf-4node-partial-s3"])


if __name__ == "__main__":
    env.main()
