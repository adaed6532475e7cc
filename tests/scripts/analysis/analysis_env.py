"""Shared by the tests of scripts/slanalysis: import paths, fixture folders, a tolerance check.

Each test_<module>.py is one ctest (tests/scripts/CMakeLists.txt) run as a script; expected
values are worked out by hand from the fixture designs, with the arithmetic in a comment."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(REPO, "tests", "scripts", "fixtures")
for p in (os.path.join(REPO, "scripts"), FIXTURES):
    if p not in sys.path:
        sys.path.insert(0, p)

from slanalysis.experiment import load_experiments  # noqa: E402
from slanalysis.notes import silent  # noqa: E402


class Case(unittest.TestCase):
    """unittest.TestCase with a scratch folder and a relative-tolerance comparison."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="slanalysis-test-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def close(self, got, want, tol=1e-9, what=""):
        self.assertIsNotNone(got, what)
        self.assertLessEqual(abs(got - want), tol * max(1.0, abs(want)),
                             f"{what}: got {got!r}, want {want!r}")


def experiments(root):
    return load_experiments(root, silent)


def plot_fixtures(work):
    """make_plot_fixtures.py's results under work/results; returns that folder."""
    import make_plot_fixtures
    root = os.path.join(work, "results")
    make_plot_fixtures.main([root])
    return root


def fix_profile(work, **extra):
    """The profile of the vclock fixtures: transformer d_model 4 -> 0.05 s per step; other
    shapes overhead 0.5 + FLOPs / 28800; measured selection; sensitivity x0.5 / x2."""
    import json
    p = {"name": "fix", "source": "test fixture",
         "seconds_per_step": [{"match": {"model.type": "transformer", "model.d_model": 4},
                               "seconds": 0.05}],
         "sustained_flops": 28800.0, "overhead_s": {"transformer": 0.5},
         "selection": {"mode": "measured"}, "sensitivity": [0.5, 2.0]}
    p.update(extra)
    path = os.path.join(work, "fix-profile.json")
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def run_script(args, python=None):
    """A command under this interpreter, from the repository root (as the docs print them)."""
    return subprocess.run([python or sys.executable] + args, cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def main():
    unittest.main(verbosity=2)
