#!/usr/bin/env python3
"""ctest slurm_submit_dry_run: scripts/slurm/submit-suite.sh --dry-run must turn a suite, a
config and a config list into the expected sbatch commands, and refuse bad input with exit 2.
Needs no Slurm (the real submission is checked by scripts/test-slurm.sh).

Usage: check_submit_suite.py REPO_ROOT WORK_DIR      (exit 0 pass, 1 fail)
"""
import json
import os
import shlex
import shutil
import subprocess
import sys

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))


def submit(repo, work, args):
    env = dict(os.environ, SL_PYTHON=sys.executable, SL_RESULTS_DIR=os.path.join(work, "results"))
    env.pop("SL_GPUS", None)
    env.pop("SL_SBATCH_ARGS", None)
    return subprocess.run(["bash", os.path.join(repo, "scripts/slurm/submit-suite.sh")] + args,
                          capture_output=True, text=True, env=env, cwd=work, timeout=60)


def jobs(stdout):
    """One dict per printed command: env vars, sbatch options, then the job's arguments."""
    out = []
    for line in stdout.splitlines():
        words = shlex.split(line)
        if not words or words[0] != "env":
            continue
        i = words.index("sbatch")
        env = dict(w.split("=", 1) for w in words[1:i])
        script = next(j for j, w in enumerate(words) if w.endswith("train.sbatch"))
        opts = words[i + 1:script]
        out.append({"env": env, "opts": opts, "args": words[script + 1:]})
    return out


def main(argv):
    repo, work = (os.path.abspath(a) for a in argv)  # the script runs from inside WORK_DIR
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    results = os.path.join(work, "results")
    write(os.path.join(work, "configs/tf.json"), {"model": {"type": "transformer"}})
    write(os.path.join(work, "configs/rnn.json"), {"model": {"type": "rnn"}, "cluster": {"nodes": 2}})
    write(os.path.join(work, "suites/paper.json"), {"name": "paper", "experiments": [
        {"name": "tf-4node-partial", "config": "../configs/tf.json", "nodes": 4,
         "set": ["distributed.combiner=partial", "train.note=two words"]},
        {"name": "rnn-from-config", "config": "configs/rnn.json"},
        {"name": "tf-default", "config": "configs/tf.json"}]})

    r = submit(repo, work, ["suites/paper.json", "--dry-run", "--partition", "gpu", "--nodes", "3"])
    expect(r.returncode == 0, f"suite dry run: exit {r.returncode}: {r.stderr}")
    got = jobs(r.stdout)
    expect(len(got) == 3, f"want 3 jobs, got {len(got)}:\n{r.stdout}")
    if len(got) == 3:
        a, b, c = got
        expect("--nodes=4" in a["opts"] and "--ntasks-per-node=1" in a["opts"], f"job 1 opts {a['opts']}")
        expect("--partition=gpu" in a["opts"], f"job 1 lacks the partition: {a['opts']}")
        expect(a["env"].get("SL_OUTPUT_DIR") == os.path.join(results, "paper/tf-4node-partial"),
               f"job 1 output dir {a['env']}")
        expect(f"--output={results}/paper/slurm/tf-4node-partial-%j.out" in a["opts"], f"job 1 log {a['opts']}")
        expect(a["args"] == [os.path.join(work, "configs/tf.json"), "--set", "distributed.combiner=partial",
                             "--set", "train.note=two words"], f"job 1 args {a['args']}")
        expect("--nodes=3" in b["opts"], f"--nodes must beat the config's cluster.nodes: {b['opts']}")
        expect("--nodes=3" in c["opts"], f"--nodes is the default node count: {c['opts']}")
        expect(not any(o.startswith("--gres") for o in a["opts"]), "gres asked without SL_GPUS")

    r = submit(repo, work, ["suites/paper.json", "--dry-run"])
    got = jobs(r.stdout)
    expect(len(got) == 3 and "--nodes=2" in got[1]["opts"] and "--nodes=1" in got[2]["opts"],
           f"without --nodes: the config's cluster.nodes, else 1:\n{r.stdout}")

    write(os.path.join(work, "list.txt"), "# two configs\nconfigs/tf.json\nconfigs/rnn.json  # rnn\n")
    r = submit(repo, work, ["list.txt", "--dry-run"])
    got = jobs(r.stdout)
    expect(r.returncode == 0 and [j["env"].get("SL_OUTPUT_DIR") for j in got] ==
           [os.path.join(results, "tf"), os.path.join(results, "rnn")], f"config list:\n{r.stdout}{r.stderr}")

    bad = {
        "duplicate name": ({"name": "s", "experiments": [{"name": "a", "config": "configs/tf.json"}] * 2},
                           "appears twice"),
        "missing config": ({"name": "s", "experiments": [{"name": "a", "config": "nope.json"}]},
                           "no such file"),
        "bad nodes": ({"name": "s", "experiments": [{"name": "a", "config": "configs/tf.json",
                                                     "nodes": 0}]}, '"nodes"'),
        "bad set": ({"name": "s", "experiments": [{"name": "a", "config": "configs/tf.json",
                                                   "set": "a=b"}]}, '"set"'),
        "unsafe name": ({"name": "s", "experiments": [{"name": "../a", "config": "configs/tf.json"}]},
                        '"name"'),
        "malformed JSON": ('{"name": "s", "experiments": [', "malformed JSON"),
    }
    for what, (doc, message) in bad.items():
        path = os.path.join(work, "bad.json")
        write(path, doc)
        r = submit(repo, work, [path, "--dry-run"])
        expect(r.returncode == 2 and message in r.stderr and not r.stdout.strip(),
               f"{what}: want exit 2, {message!r} and no job; got {r.returncode}, {r.stderr!r}")
    r = submit(repo, work, ["suites/paper.json", "--nodes", "x", "--dry-run"])
    expect(r.returncode == 2, f"--nodes x: exit {r.returncode}")

    # cluster.nodes as run-experiment resolves it: through "extends" (relative to the file that
    # names it), and a suite entry's --set cluster.nodes=K (train.sbatch forces the job's count)
    write(os.path.join(work, "configs/sub/child.json"), {"extends": "../rnn.json", "name": "child"})
    write(os.path.join(work, "suites/ext.json"), {"name": "ext", "experiments": [
        {"name": "child", "config": "../configs/sub/child.json"},
        {"name": "set3", "config": "../configs/tf.json", "set": ["cluster.nodes=3"]}]})
    r = submit(repo, work, ["configs/sub/child.json", "suites/ext.json", "--dry-run"])
    got = jobs(r.stdout)
    expect(r.returncode == 0 and [next(o for o in j["opts"] if o.startswith("--nodes=")) for j in got] ==
           ["--nodes=2", "--nodes=2", "--nodes=3"], f"nodes through extends / set:\n{r.stdout}{r.stderr}")
    for what, files, message in (
            ("two configs with one name", {"a/rnn.json": {"name": "x"}, "b/rnn.json": {"name": "y"}},
             'a second config named "rnn"'),
            ("a list naming itself", {"self.txt": "self.txt\n"}, "names itself"),
            ("an empty list", {"empty.txt": "# nothing\n"}, "no experiments to submit"),
            ("a list naming a missing list", {"lost.txt": "gone.txt\n"}, "gone.txt: no such file"),
            ("a folder", {"dir/x.json": {}}, "a folder, expected a file")):
        args = []
        for name, doc in files.items():
            path = os.path.join(work, "more", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if isinstance(doc, str):
                with open(path, "w") as f:
                    f.write(doc)
            else:
                write(path, doc)
            args.append(os.path.dirname(path) if what == "a folder" else path)
        r = submit(repo, work, args + ["--dry-run"])
        expect(r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr and not r.stdout.strip(),
               f"{what}: want exit 2 and {message!r}; got {r.returncode}, {r.stderr!r}")

    print("FAILED: %d checks" % len(failures) if failures else "OK: submit-suite.sh dry runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
