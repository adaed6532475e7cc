#!/usr/bin/env python3
"""Bad-input cases of issue 15, in groups (one ctest each): every case runs run-experiment and
expects exit code 2 within 30 s (no crash, no hang) and one error line containing the given
substrings.
  dupkeys   duplicate JSON keys -> file + JSON pointer (item 4)
  deep      a config nested 100,000 levels deep -> rejected at parse time (item 5), also
            under mpiexec -n 4 when MPIEXEC is given
  nul       a NUL byte in a corpus line -> file:line (item 7)
  messages  --set errors name the --set, model mismatch on resume names both models, one
            drop_ratio range text (item 9)
  setblame  (issue 31 item 6) a --set that creates a misspelt section is blamed, not the file
Usage: input_errors.py GROUP RUN_EXPERIMENT WORKDIR [MPIEXEC]   (from the repository root)"""
import json
import os
import shutil
import subprocess
import sys

GROUP, BIN, WORK = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
MPIEXEC = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
DENSE = os.path.abspath("configs/tiny/dense.json")
CORPUS = os.path.abspath("data/tiny-de-en")
FAST = ["--set", "train.max_steps=6", "--set", "train.checkpoint_every=3", "--set", "train.log_every=1",
        "--set", "valid.test_at_end=false", "--set", "valid.every=0", "--no-progress"]


def write(name, data):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


rows = []


def row(case, argv, *expect, launcher=None, absent=()):
    # A results directory of its own and a short run, in case the input is (wrongly) accepted.
    if "--output-dir" not in argv:
        argv = argv + ["--output-dir", os.path.join(WORK, "out-%d" % len(rows))]
    argv = argv + FAST
    rows.append((case, (launcher or []) + [BIN] + argv, expect, absent))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if GROUP == "dupkeys":
        dup = write("dup.json", '{\n  "extends": "%s",\n  "train": {"max_steps": 5},\n  "train": {"lr": 0.001}\n}\n' % DENSE)
        row("duplicate top-level key", ["--config", dup], "dup.json:/train", "duplicate key \"train\"")
        dup2 = write("dup2.json", '{"extends": "%s", "train": {"lr": 0.001, "warmup": 5, "lr": 0.002}}' % DENSE)
        row("duplicate nested key", ["--config", dup2], "dup2.json:/train/lr", "duplicate key \"lr\"")
        dup3 = write("dup3.json", '{"extends": "%s", "x": [{"a": 1}, {"b": 1, "b": 2}]}' % DENSE)
        row("duplicate key inside an array", ["--config", dup3], "dup3.json:/x/1/b", "duplicate key")
        base = write("dupbase/base.json", '{"extends": "%s", "name": "b", "name": "c"}' % DENSE)
        top = write("dupbase/top.json", '{"extends": "base.json"}')
        row("duplicate key in a base config", ["--config", top], "base.json:/name", "duplicate key")
        row("duplicate key in a --set value", ["--config", DENSE, "--set", 'train={"lr": 1, "lr": 2}'],
            "--set train=", "/lr", "duplicate key")
    elif GROUP == "deep":
        deep = write("deep.json", '{"name": "x", "train": ' + "[" * 100000 + "]" * 100000 + "}")
        row("nested 100,000 levels", ["--config", deep], "deep.json:/train/0/0", "nested more than 64 levels")
        deep_obj = write("deep-obj.json", '{"a": ' * 100000 + "1" + "}" * 100000)
        row("objects nested 100,000 levels", ["--config", deep_obj], "deep-obj.json:/a/a", "nested more than 64 levels")
        row("deep --set value", ["--config", DENSE, "--set", "train.x=" + "[" * 5000 + "]" * 5000],
            "--set train.x=", "nested more than 64 levels")
        if MPIEXEC:
            row("nested 100,000 levels, mpiexec -n 4", ["--config", deep, "--set", "cluster.backend=mpi"],
                "deep.json:/train/0/0", "nested more than 64 levels", launcher=[MPIEXEC, "-n", "4"])
    elif GROUP == "nul":
        d = os.path.join(WORK, "nulcorpus")
        shutil.copytree(CORPUS, d)
        p = os.path.join(d, "train.de")
        with open(p, "rb") as f:
            lines = f.read().split(b"\n")
        lines[11] = b"ein \x00 Satz"
        with open(p, "wb") as f:
            f.write(b"\n".join(lines))
        row("NUL byte in a corpus line", ["--config", DENSE, "--set", "data.corpus=" + d],
            "nulcorpus/train.de:12", "NUL byte")
    elif GROUP == "messages":
        row("--set unknown key", ["--config", DENSE, "--set", "train.no_such_key=5"],
            "--set train.no_such_key=5:", "unknown key", absent=["dense.json:/train/no_such_key"])
        row("--set value out of range", ["--config", DENSE, "--set", "train.lr=-1"],
            "--set train.lr=-1:", "expected a number in [", absent=["dense.json"])
        row("--set object with a bad key", ["--config", DENSE, "--set", 'train={"lrr": 1}'],
            "--set train={\"lrr\": 1}:", "/train/lrr", "unknown key")
        sparse = ["--config", DENSE, "--set", "distributed.method=sparse"]
        row("drop_ratio 1.0", sparse + ["--set", "distributed.drop_ratio=1.0"],
            "--set distributed.drop_ratio=1.0:", "expected a number in [0, 1), got")
        row("drop_ratio -0.1", sparse + ["--set", "distributed.drop_ratio=-0.1"],
            "--set distributed.drop_ratio=-0.1:", "expected a number in [0, 1), got")
        row("dropout 1.0 in a file", ["--config", write("dropout.json", json.dumps(
            {"extends": DENSE, "model": {"dropout": 1.0}}))], "dropout.json:/model/dropout", "[0, 1), got")
        out = os.path.join(WORK, "run-d32")
        r = subprocess.run([BIN, "--config", DENSE, "--output-dir", out] + FAST, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"setup run failed ({r.returncode}):\n{r.stderr}")
        row("model mismatch on resume", ["--config", DENSE, "--output-dir", out, "--resume",
                                         "--set", "model.d_model=48"],
            "model_fingerprint", "the checkpoint is of the model transformer (", "this config asks for transformer (",
            "d_model 32 -> 48")
    elif GROUP == "setblame":
        row("--set creating an unknown section", ["--config", DENSE, "--set", "trian.max_steps=5"],
            "--set trian.max_steps=5:", "unknown key", absent=["dense.json"])
        row("--set creating a nested unknown object", ["--config", DENSE, "--set", "model.nope.depth=2"],
            "--set model.nope.depth=2:", "unknown key", absent=["dense.json"])
        row("--set of an unknown section itself", ["--config", DENSE, "--set", "trian=5"],
            "--set trian=5:", "unknown key", absent=["dense.json"])
        bad = write("trian.json", json.dumps({"extends": DENSE, "trian": {"max_steps": 5}}))
        row("the same in the file", ["--config", bad, "--set", "trian.max_steps=6"],
            "trian.json:/trian", "unknown key", absent=["--set"])
    else:
        sys.exit(f"unknown group {GROUP}")

    failed = 0
    for case, argv, expect, absent in rows:
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            rc, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired as t:
            rc, err = "timeout (hang)", (t.stderr or b"").decode(errors="replace") if isinstance(t.stderr, bytes) else (t.stderr or "")
        lines = [l for l in err.splitlines() if "error:" in l or "fatal:" in l]
        line = lines[0] if lines else (err.strip().splitlines() or ["(no stderr)"])[-1]
        problems = []
        if rc != 2:
            problems.append(f"exit code {rc}, expected 2")
        problems += [f"error line lacks {s!r}" for s in expect if s not in line]
        problems += [f"error line has {s!r}" for s in absent if s in line]
        print(f"{case:42} {str(rc):>3}  {'ok  ' if not problems else 'FAIL'} {line[:300]}")
        for p in problems:
            print(f"{'':48}{p}")
        if problems:
            failed += 1
            print(err[-1500:])
    print(f"{len(rows) - failed}/{len(rows)} cases of group {GROUP} pass")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
