#!/usr/bin/env python3
"""The command lines: analyze.py dispatches to every command; the old script names are the
same commands (same --help); bad input gets one line and exit 2."""
import os

import analysis_env as env
from slanalysis.commands.dispatch import COMMANDS

OLD_NAMES = {"claims": "claims.py", "plot": "plot.py", "speedup-map": "speedup_map.py",
             "vclock": "vclock.py"}


class Commands(env.Case):
    def test_dispatch(self):
        r = env.run_script(["scripts/analyze.py", "-h"])
        self.assertEqual(r.returncode, 0)
        for name in COMMANDS:
            self.assertIn(f"  {name} ", r.stdout)
        r = env.run_script(["scripts/analyze.py", "nope"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command 'nope'", r.stderr)
        self.assertEqual(env.run_script(["scripts/analyze.py"]).returncode, 2)

    def test_a_reader_that_stops_early_ends_the_command_quietly(self):
        # `analyze.py ... | head`: the write after the reader left raises BrokenPipeError in
        # the command; dispatch.entry ends with status 1 and no traceback, as a Unix filter
        import subprocess
        import sys
        code = ("import sys; sys.path.insert(0, 'scripts')\n"
                "from slanalysis.commands.dispatch import entry\n"
                "def main(argv):\n"
                "    print('first line', flush=True)\n"
                "    raise BrokenPipeError(32, 'Broken pipe')\n"
                "entry(main, [])\n")
        r = subprocess.run([sys.executable, "-c", code], cwd=env.REPO, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "")
        ok = subprocess.run([sys.executable, "-c", code.replace("    raise BrokenPipeError(32, 'Broken pipe')\n", "    return 0\n")],
                            cwd=env.REPO, capture_output=True, text=True)
        self.assertEqual((ok.returncode, ok.stdout), (0, "first line\n"), ok.stderr)

    def test_old_names_are_the_same_commands(self):
        for cmd, script in OLD_NAMES.items():
            new = env.run_script(["scripts/analyze.py", cmd, "--help"])
            old = env.run_script([f"scripts/{script}", "--help"])
            self.assertEqual((new.returncode, old.returncode), (0, 0), cmd)
            # the same options and help text under the two program names (argparse wraps the
            # usage lines by the name's length, so compare the words)
            self.assertEqual(new.stdout.replace(f"analyze.py {cmd}", script).split(),
                             old.stdout.split(), cmd)

    def test_bad_input(self):
        for args, message in (
                (["scripts/claims.py", "/nonexistent"], "claims.py: error: /nonexistent: not a directory"),
                (["scripts/analyze.py", "claims", "/nonexistent"],
                 "analyze.py claims: error: /nonexistent: not a directory"),
                (["scripts/speedup_map.py", "results", "--grid", "1"], "--grid 1: want at least 2"),
                (["scripts/claims.py", "results/small", "--v2", "--profile", "nope.json"],
                 "--profile nope.json: No such file or directory"),
                (["scripts/bytes-report.py", "tests", "tests"], "bytes-report.py: error: tests: no log.jsonl"),
                (["scripts/bytes-report.py", "/nonexistent", "tests"],
                 "bytes-report.py: error: /nonexistent: not a folder"),
                (["scripts/analyze.py", "plot", "results/repro-v3/rnn", "--network", "5gbe"],
                 "--network 5gbe: in no log under results/repro-v3/rnn (have: 10gbe, 1gbe"),
                (["scripts/analyze.py", "speedup-vs-target", "results/repro-v3", "--no-plot",
                  "--model", "rnnx"], "for --model rnnx (models there: rnn, transformer)"),
                (["scripts/analyze.py", "speedup-vs-target", "results/repro-v3", "--no-plot",
                  "--model", "rnn", "--ref4", "nope"], "--ref4 nope: no such variant"),
                (["scripts/analyze.py", "vclock", "clock", "results/small/rnn", "--profile",
                  "configs/hardware/gpu-class-assumed.json"], "results/small/rnn: no config.json"),
                (["scripts/analyze.py", "claims-v3", "results/repro-v3", "--out", "/nonexistent/x.md"],
                 "/nonexistent/x.md.tmp: No such file or directory"),
                (["scripts/compress-logs.py", "results/repro-v3", "--dryrun"], "--dryrun: unknown option"),
                (["scripts/analyze.py", "claims", "results/repro", "--network", "5gbe"],
                 "--network 5gbe: in no log under results/repro"),
                (["scripts/analyze.py", "speedup-map", "results/repro", "--no-plot", "--only", "zzz"],
                 "--only 'zzz' matches no variant"),
                (["scripts/analyze.py", "v3-status", "--suites", "/nonexistent"],
                 "--suites /nonexistent: not a folder"),
                (["scripts/analyze.py", "speedup-vs-target", "results", "--boot", "0"],
                 "--boot 0: want at least 1"),
                # numbers a command would divide by or print nonsense with: refused by argparse,
                # one line (no usage block)
                (["scripts/analyze.py", "vclock", "clock", "results/repro/rnn/rnn-4node-dense-s1",
                  "--bandwidth-gbps", "0"], "argument --bandwidth-gbps: '0': want a finite number > 0"),
                (["scripts/analyze.py", "claims", "results/repro", "--bleu-fraction", "2"],
                 "'2': want a finite number > 0 and <= 1"),
                (["scripts/analyze.py", "claims", "results/repro", "--target-ce", "nan"],
                 "'nan': want a finite number > 0"),
                (["scripts/analyze.py", "clock-validation", "results/clock", "--skip", "-1"],
                 "'-1': want an integer >= 0"),
                (["scripts/analyze.py", "claims-v3", "results/repro-v3", "--profile",
                  "configs/hardware/cpu-here-1thread.json"],
                 "claim 3's verdict is read on configs/hardware/gpu-class-assumed.json")):
            r = env.run_script(args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr, args)
            self.assertNotIn("Traceback", r.stderr, args)
            self.assertEqual(r.stdout, "", args)   # no half-printed table before the error
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))

    def test_a_damaged_log_is_one_line_and_exit_2(self):
        import shutil
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "rnn-4node-dense-s1")
            shutil.copytree(os.path.join(env.REPO, "results/repro/rnn/rnn-4node-dense-s1"), run)
            gz = os.path.join(run, "log.jsonl.gz")
            with open(gz, "r+b") as f:
                f.truncate(os.path.getsize(gz) // 2)
            for args in (["scripts/analyze.py", "claims", d], ["scripts/bytes-report.py", run, run],
                         ["scripts/analyze.py", "speedup-vs-target", d, "--no-plot", "--out", d]):
                r = env.run_script(args)
                self.assertEqual(r.returncode, 2, args)
                self.assertIn(f"{gz}: cannot be read to its end", r.stderr, args)
                self.assertNotIn("Traceback", r.stderr, args)

    def test_bytes_report_warns_of_a_torn_line(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            line = {"step": 1, "bytes_sent": 100, "method": "dense", "nodes": 4,
                    "modeled_time_s": {"1gbe": 1.0, "10gbe": 0.5}}
            with open(os.path.join(d, "log.jsonl"), "w") as f:
                f.write(json.dumps(line) + "\n" + json.dumps(dict(line, step=2))[:30])
            r = env.run_script(["scripts/bytes-report.py", d, d])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("log.jsonl:2: skipped an incomplete or malformed line", r.stderr)
            self.assertIn("| dense | 4 | 1 |", r.stdout)
            # a missing folder after a good one: the error, and no table half printed
            r = env.run_script(["scripts/bytes-report.py", d, os.path.join(d, "nope")])
            self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
            self.assertIn("nope: not a folder", r.stderr)

    def test_bytes_report_per_step_from_the_summary(self):
        import json
        import tempfile
        line = {"method": "sparse+partial", "nodes": 4, "modeled_time_s": {"1gbe": 1.0, "10gbe": 0.5}}
        with tempfile.TemporaryDirectory() as d:
            base, run = os.path.join(d, "base"), os.path.join(d, "run")
            for folder, rows in ((base, [(1, 100), (2, 100), (3, 100)]),
                                 (run, [(100, 10), (200, 10), (300, 10), (400, 10), (500, 1010),
                                        (600, 10)])):
                os.makedirs(folder)
                with open(os.path.join(folder, "log.jsonl"), "w") as f:
                    f.writelines(json.dumps(dict(line, step=s, bytes_sent=b)) + "\n" for s, b in rows)
            # every step logged: exact without a summary (100); logged every 100 steps, each row
            # standing for the 100 before it (row 500 is not marked as an averaging step):
            # (400 x 10 + 100 x 1010 + 100 x 10) / 600 = 176.67, marked an estimate
            r = env.run_script(["scripts/bytes-report.py", base, run])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| base | sparse+partial | 4 | 3 | 100 | 100.00% |", r.stdout)
            self.assertIn("| run | sparse+partial | 4 | 600 | 177 (est.) | 176.67% |", r.stdout)
            self.assertIn("the rate between two logged rows is taken as constant", r.stdout)
            # marked as the averaging step it is (its divergence), row 500 counts once:
            # (600 x 10 + 1010 - 10) / 600 = 11.67, still an estimate (rows every 100 steps)
            marked = os.path.join(d, "marked")
            os.makedirs(marked)
            with open(os.path.join(marked, "log.jsonl"), "w") as f:
                f.writelines(json.dumps(dict(line, step=s, bytes_sent=b, **({"divergence": 1.0}
                                             if s == 500 else {}))) + "\n"
                             for s, b in ((100, 10), (200, 10), (300, 10), (400, 10), (500, 1010),
                                          (600, 10)))
            r = env.run_script(["scripts/bytes-report.py", base, marked])
            self.assertIn("| marked | sparse+partial | 4 | 600 | 12 (est.) | 11.67% |", r.stdout)
            # summary.json's total over the 600 steps (599 x 10 + 1010) / 600 = 11.67 is exact
            with open(os.path.join(run, "summary.json"), "w") as f:
                json.dump({"steps": 600, "bytes_per_step": 11.6667}, f)
            r = env.run_script(["scripts/bytes-report.py", base, run])
            self.assertIn("| run | sparse+partial | 4 | 600 | 12 | 11.67% |", r.stdout)
            self.assertNotIn("est.", r.stdout)


if __name__ == "__main__":
    env.main()
