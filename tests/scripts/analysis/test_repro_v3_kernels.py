#!/usr/bin/env python3
"""scripts/repro_v3_kernels.py: which kernels a suite's new runs are put on, from the suite's
finished runs (fixture summaries written here) and the CPU's flags; and end to end, that the
driver's run-experiment (the stand-in of test_repro_v3_driver) inherits the pin."""
import collections
import json
import os
import subprocess
import sys
import unittest

import analysis_env as env
import test_repro_v3_driver as drv

import repro_v3_kernels as k

AVX512 = {"pni", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}
AVX2 = {"pni", "avx", "avx2", "fma"}
SKX = ("OpenBLAS", "SkylakeX", "avx512")


def finished(root, name, core, isa, status="complete", library="OpenBLAS"):
    d = os.path.join(root, name)
    os.makedirs(d)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"status": status, "blas": {"library": library, "core": core, "core_isa": isa}}, f)


class Choose(unittest.TestCase):
    def test_pins_the_most_used_core_where_the_cpu_runs_it(self):
        ks = collections.Counter({SKX: 3, ("OpenBLAS", "Haswell", "avx2"): 1})
        up, msg = k.choose(ks, {}, AVX512)
        self.assertEqual(up, {"OPENBLAS_CORETYPE": "SkylakeX"})
        self.assertEqual(msg, "new runs use the suite's kernels: 3 of its 4 finished runs used "
                              "OpenBLAS core SkylakeX; 1 other run(s) on other kernels "
                              "(OPENBLAS_CORETYPE=SkylakeX)")

    def test_a_cpu_without_the_isa_is_told_not_pinned(self):
        up, msg = k.choose(collections.Counter({SKX: 2}), {}, AVX2)
        self.assertEqual(up, {})
        self.assertIn("which this CPU cannot run (avx512)", msg)

    def test_the_users_choice_is_kept(self):
        up, msg = k.choose(collections.Counter({SKX: 2}), {"OPENBLAS_CORETYPE": "Haswell"}, AVX512)
        self.assertEqual(up, {})
        self.assertIn("OPENBLAS_CORETYPE=Haswell is kept, but 2 of its 2", msg)
        up, msg = k.choose(collections.Counter({SKX: 2}), {"OPENBLAS_CORETYPE": "skylakex"}, AVX512)
        self.assertEqual((up, msg), ({}, "OPENBLAS_CORETYPE=skylakex is kept: 2 of its 2 finished "
                                         "runs used OpenBLAS core SkylakeX"))
        up, msg = k.choose(collections.Counter({SKX: 2}), {"SL_BLAS": "blis"}, AVX512)
        self.assertEqual(up, {})
        self.assertIn("SL_BLAS=blis is kept", msg)

    def test_no_runs_or_another_library(self):
        self.assertEqual(k.choose(collections.Counter(), {}, AVX512), ({}, None))
        up, msg = k.choose(collections.Counter({("BLIS", "zen3", "avx2"): 1}), {}, AVX512)
        self.assertEqual(up, {})
        self.assertIn("not pinned", msg)


class Reading(env.Case):
    def test_only_finished_runs_with_a_recorded_core_count(self):
        finished(self.work, "a", "SkylakeX", "avx512")
        finished(self.work, "b", "SkylakeX", "avx512")
        finished(self.work, "c", "Cooperlake", "avx512", status="incomplete")
        finished(self.work, "d", "", "")
        os.makedirs(os.path.join(self.work, "e"))  # no summary yet
        self.assertEqual(k.suite_kernels(self.work), collections.Counter({SKX: 2}))
        self.assertEqual(k.suite_kernels(os.path.join(self.work, "absent")), collections.Counter())

    def test_cpu_flags(self):
        p = os.path.join(self.work, "cpuinfo")
        with open(p, "w") as f:
            f.write("processor\t: 0\nflags\t\t: fpu pni avx2\nbugs\t\t: none\n")
        self.assertEqual(k.cpu_flags(p), {"fpu", "pni", "avx2"})
        self.assertEqual(k.cpu_flags(os.path.join(self.work, "absent")), set())


class DriverPin(env.Case):
    """The pin reaches run-experiment; `rnn transformer` does not carry the RNN's pin over to a
    Transformer suite without runs; --kernels machine pins nothing. The fixture run's core is
    Prescott (SSE3), which every x86-64 CPU runs."""

    def drive(self, *extra):
        fake = drv.Driver.fake(self)  # the driver test's stand-in run-experiment
        cfg, res = os.path.join(self.work, "configs"), os.path.join(self.work, "results")
        os.makedirs(cfg, exist_ok=True)
        if not os.path.isdir(os.path.join(res, "rnn")):
            finished(os.path.join(res, "rnn"), "rnn-earlier-run", "Prescott", "sse")
        e = dict(os.environ)
        e.pop("OPENBLAS_CORETYPE", None)
        p = subprocess.run([sys.executable, drv.DRIVER, "rnn", "transformer", "--bin", fake,
                            "--results", res, "--config-dir", cfg, "--until", "lr", *extra],
                           capture_output=True, text=True, env=e)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout[-2000:])
        return p.stdout, [l.split() for l in drv.lines(os.path.join(res, "coretype.log"))]

    @unittest.skipUnless("pni" in k.cpu_flags(), "not an x86-64 CPU with SSE3 (flag pni)")
    def test_pinned_per_model(self):
        out, calls = self.drive()
        self.assertIn("repro_v3: rnn: new runs use the suite's kernels: 1 of its 1 finished runs "
                      "used OpenBLAS core Prescott (OPENBLAS_CORETYPE=Prescott)", out)
        rnn = [c for n, c in calls if n.startswith("rnn-")]
        tr = [c for n, c in calls if n.startswith("transformer-")]
        self.assertTrue(rnn and tr)
        self.assertEqual(set(rnn), {"Prescott"})
        self.assertEqual(set(tr), {"-"})

    def test_machine_pins_nothing(self):
        out, calls = self.drive("--kernels", "machine")
        self.assertNotIn("suite's kernels", out)
        self.assertEqual({c for _, c in calls}, {"-"})


if __name__ == "__main__":
    unittest.main()
