#!/usr/bin/env python3
"""slanalysis.logfiles and slanalysis.notes: numbers, torn JSON lines, experiment folders."""
import os

import analysis_env as env
from slanalysis.logfiles import DamagedLog, find_experiment_dirs, number, read_json, read_jsonl, run_complete
from slanalysis.notes import Notes


class LogFiles(env.Case):
    def test_number(self):
        self.assertEqual(number(3), 3.0)
        self.assertEqual(number(-0.5), -0.5)
        for bad in (True, None, "1", float("nan"), float("inf"), [1]):
            self.assertIsNone(number(bad), repr(bad))

    def test_read_jsonl_skips_torn_blank_and_non_objects(self):
        path = os.path.join(self.work, "log.jsonl")
        with open(path, "w") as f:
            f.write('{"step": 1}\n\n[1, 2]\n{"step": 2}\n{"step": 3, "tra')
        seen = []
        rows = read_jsonl(path, seen.append)
        self.assertEqual(rows, [{"step": 1}, {"step": 2}])
        # line 5 is the torn one; the blank line 2 and the list on line 3 are not reported
        self.assertEqual(seen, [f"{path}:5: skipped an incomplete or malformed line"])
        self.assertEqual(read_jsonl(os.path.join(self.work, "missing.jsonl")), [])

    def test_a_damaged_log_of_a_finished_run_is_an_error(self):
        import gzip
        path = os.path.join(self.work, "log.jsonl")
        with open(path, "w") as f:
            f.write('{"step": 1}\n{"step": 2, "tra')
        # a run killed mid-write: the torn line is skipped; a run that says it finished: its
        # resume would have cut the line, so the file was damaged since
        self.assertEqual(read_jsonl(path, finished=False), [{"step": 1}])
        with self.assertRaises(DamagedLog) as e:
            read_jsonl(path, finished=True)
        self.assertTrue(str(e.exception).startswith(f"{path}:2: a torn or malformed line"), e.exception)
        # a .gz cut short (as a partial copy leaves it): never readable to its end
        os.remove(path)
        data = gzip.compress(b"".join(b'{"step": %d}\n' % i for i in range(2000)))
        with open(path + ".gz", "wb") as f:
            f.write(data[: len(data) // 2])
        with self.assertRaises(DamagedLog) as e:
            read_jsonl(path)
        self.assertTrue(str(e.exception).startswith(f"{path}.gz: cannot be read to its end"), e.exception)
        with open(path + ".gz", "wb") as f:
            f.write(b"not gzip at all\n")
        self.assertRaises(DamagedLog, read_jsonl, path)

    def test_read_jsonl_takes_the_gzip_copy_when_the_plain_file_is_absent(self):
        import gzip
        import subprocess
        import sys
        run = os.path.join(self.work, "run")
        os.makedirs(run)
        with open(os.path.join(run, "log.jsonl"), "w") as f:
            f.write('{"step": 10}\n{"step": 20}\n')
        with open(os.path.join(run, "valid.jsonl"), "w") as f:
            f.write('{"step": 20, "dev_ce": 3.5}\n')
        with open(os.path.join(run, "summary.json"), "w") as f:
            f.write('{"status": "complete"}')
        # a mistyped option changes nothing (it was taken for a folder after the others were done)
        p = subprocess.run([sys.executable, os.path.join(env.REPO, "scripts", "compress-logs.py"),
                            self.work, "--dryrun"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--dryrun: unknown option", p.stderr)
        self.assertTrue(os.path.exists(os.path.join(run, "log.jsonl")))
        # scripts/compress-logs.py replaces both with .gz files; the reader reads them back
        p = subprocess.run([sys.executable, os.path.join(env.REPO, "scripts", "compress-logs.py"),
                            self.work], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(run, "log.jsonl")))
        with gzip.open(os.path.join(run, "log.jsonl.gz"), "rt") as f:
            self.assertEqual(f.read(), '{"step": 10}\n{"step": 20}\n')
        self.assertEqual(read_jsonl(os.path.join(run, "log.jsonl")), [{"step": 10}, {"step": 20}])
        self.assertFalse(os.path.exists(os.path.join(run, "valid.jsonl")))
        self.assertEqual(read_jsonl(os.path.join(run, "valid.jsonl")), [{"step": 20, "dev_ce": 3.5}])
        # an unfinished run (no complete summary) keeps its plain log: --resume appends to it
        other = os.path.join(self.work, "running")
        os.makedirs(other)
        with open(os.path.join(other, "log.jsonl"), "w") as f:
            f.write('{"step": 1}\n')
        subprocess.run([sys.executable, os.path.join(env.REPO, "scripts", "compress-logs.py"),
                        self.work], check=True, capture_output=True)
        self.assertTrue(os.path.exists(os.path.join(other, "log.jsonl")))

    def test_run_complete(self):
        # only "complete" makes a run's logs final; a stopped (diverged) or running run may resume
        for name, text, want in (("done", '{"status": "complete"}', True),
                                 ("stopped", '{"status": "stopped", "reason": "non-finite loss"}', False),
                                 ("torn", '{"status": "compl', False), ("array", '["complete"]', False),
                                 ("none", None, False)):
            d = os.path.join(self.work, name)
            os.makedirs(d)
            if text is not None:
                with open(os.path.join(d, "summary.json"), "w") as f:
                    f.write(text)
            self.assertEqual(run_complete(d), want, name)

    def test_read_json(self):
        good, bad, arr = (os.path.join(self.work, n) for n in ("a.json", "b.json", "c.json"))
        for p, text in ((good, '{"x": 1}'), (bad, '{"x": '), (arr, "[1]")):
            with open(p, "w") as f:
                f.write(text)
        notes = Notes("test")
        self.assertEqual(read_json(good, notes), {"x": 1})
        self.assertIsNone(read_json(bad, notes))
        self.assertIsNone(read_json(arr, notes))
        self.assertIsNone(read_json(os.path.join(self.work, "none.json"), notes))
        self.assertEqual(len(notes.lines), 1)
        self.assertIn("b.json: unreadable JSON", notes.lines[0])

    def test_find_experiment_dirs(self):
        root = env.plot_fixtures(self.work)
        found = [os.path.relpath(d, root) for d in find_experiment_dirs(root)]
        # 7 runs of make_plot_fixtures.py in walk order; paper-small/slurm holds no result file
        # and checkpoints/ inside a run is not searched.
        self.assertEqual(found, ["paper-small/tf-1node-dense", "paper-small/tf-4node-dense",
                                 "paper-small/tf-4node-partial", "paper-small/tf-4node-sparse",
                                 "rnn-runs/rnn-1node-dense", "rnn-runs/rnn-2node-sparse",
                                 "rnn-runs/rnn-4node-error"])


if __name__ == "__main__":
    env.main()
