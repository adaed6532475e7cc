#!/usr/bin/env python3
"""Bad-input table (issue 7): every row runs run-experiment on one kind of broken input and
expects exit code 2 and a one-line error naming the file and the field or line. Rows that need
a finished run (checkpoint cases) also check that nothing already written is lost.
Usage: bad_input.py RUN_EXPERIMENT WORKDIR [MPIEXEC]   (run from the repository root)"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

BIN, WORK = sys.argv[1], os.path.abspath(sys.argv[2])
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
DENSE = os.path.abspath("configs/tiny/dense.json")
CORPUS = os.path.abspath("data/tiny-de-en")
FAST = ["--set", "train.max_steps=10", "--set", "train.checkpoint_every=5", "--set", "train.log_every=1",
        "--set", "valid.test_at_end=false", "--no-progress"]


def write(name, text, mode="w"):
    path = os.path.join(WORK, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def config(name, obj):
    return write(name, json.dumps(obj, indent=2))


def corpus_copy(name, edit):
    """A copy of the tiny corpus with one file changed by edit(dir)."""
    d = os.path.join(WORK, name)
    shutil.copytree(CORPUS, d)
    edit(d)
    return ["--set", "data.corpus=" + d, "--set", "data.spm_dir=" + os.path.join(WORK, "spm-" + name)]


def tree_digest(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def finished_run(name):
    out = os.path.join(WORK, name)
    r = subprocess.run([BIN, "--config", DENSE, "--output-dir", out] + FAST, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"setup run {name} failed ({r.returncode}):\n{r.stderr}")
    return out


def latest_node0(out):
    with open(os.path.join(out, "checkpoints", "latest")) as f:
        return os.path.join(out, "checkpoints", f.read().strip(), "node-0.ckpt")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rows = []  # (case, argv, expected substrings, directory that must stay unchanged or None)

    def row(case, args, *expect, keep=None, launcher=None):
        # every run into WORK: a row must not depend on (or write) the repository's results/
        if "--config" in args and "--output-dir" not in args:
            args = args + ["--output-dir", os.path.join(WORK, "out", str(len(rows)))]
        rows.append((case, (launcher or []) + [BIN] + args, expect, keep))

    bad = write("malformed.json", '{\n  "name": "x",\n  "seed": 1,,\n  "device": "cpu"\n}\n')
    row("malformed JSON", ["--config", bad], "malformed.json:3:13", "malformed JSON")
    with open(DENSE) as f:
        trunc = write("truncated.json", f.read()[:40])
    row("truncated JSON", ["--config", trunc], "truncated.json:", "malformed JSON")
    row("number out of range (1e999)", ["--config", write("huge.json", '{"name": "x", "seed": 1e999}')],
        "huge.json", "malformed JSON", "number overflow")
    row("empty file", ["--config", write("empty.json", "")], "empty.json", "empty file")
    row("JSON that is not an object", ["--config", write("array.json", "[1, 2]")], "array.json", "expected a JSON object")
    row("extends a missing file", ["--config", config("extends-missing.json", {"extends": "missing.json", "name": "x"})],
        "extends-missing.json:/extends", "missing.json", "no such config file")
    row("command-line mistake (CLI11)", ["--config", os.path.join(WORK, "nope.json")],
        "run-experiment: error: --config", "nope.json", "(see --help)")
    row("unknown key", ["--config", config("unknown.json", {"extends": DENSE, "nmae": "x"})],
        "unknown.json:/nmae", "unknown key")
    row("unknown nested key", ["--config", config("nested.json", {"extends": DENSE, "train": {"lrr": 1}})],
        "nested.json:/train/lrr", "unknown key")
    row("wrong type", ["--config", config("type.json", {"extends": DENSE, "train": {"max_steps": "ten"}})],
        "type.json:/train/max_steps", "expected")
    sparse = ["--config", DENSE, "--set", "distributed.method=sparse"]
    row("drop_ratio 1.0", sparse + ["--set", "distributed.drop_ratio=1.0"], "--set distributed.drop_ratio=1.0:")
    row("drop_ratio -0.1", sparse + ["--set", "distributed.drop_ratio=-0.1"], "--set distributed.drop_ratio=-0.1:")
    row("nodes 0", ["--config", DENSE, "--set", "cluster.nodes=0"], "--set cluster.nodes=0:")
    row("batch_tokens 0", ["--config", DENSE, "--set", "data.batch_tokens=0"], "--set data.batch_tokens=0:")
    row("adam.beta2 that float32 rounds to 1", ["--config", DENSE, "--set", "train.adam.beta2=0.99999999"],
        "--set train.adam.beta2=0.99999999:", "[0, 0.999999]")
    row("batch_tokens below max_length", ["--config", DENSE, "--set", "data.batch_tokens=1"],
        "--set data.batch_tokens=1:", "expected >= data.max_length")
    row("lr negative", ["--config", DENSE, "--set", "train.lr=-0.001"], "--set train.lr=-0.001:")
    row("combiner without sparse", ["--config", DENSE, "--set", "distributed.combiner=partial"],
        "--set distributed.combiner=partial:")
    row("fedavg without averaging", ["--config", DENSE, "--set", "distributed.method=fedavg",
                                     "--set", "distributed.average_every=0"], "--set distributed.average_every=0:")
    row("--set without =", ["--config", DENSE, "--set", "trainlr"], "--set trainlr", "KEY.PATH=VALUE")
    row("--set empty key", ["--config", DENSE, "--set", "train..lr=1"], "--set train..lr=1", "empty key")
    row("--set into a non-object", ["--config", DENSE, "--set", "name.x=1"], "--set name.x=1", "not an object")

    def unequal(d):
        with open(os.path.join(d, "train.en"), "a") as f:
            f.write("one more line\n")
    row("corpus with unequal line counts", ["--config", DENSE] + corpus_copy("unequal", unequal), "unequal/train.", "has ")

    def bad_utf8(d):
        p = os.path.join(d, "train.de")
        with open(p, "rb") as f:
            lines = f.read().split(b"\n")
        lines[6] = b"kaputt \xff\xfe text"
        with open(p, "wb") as f:
            f.write(b"\n".join(lines))
    row("invalid UTF-8 in a corpus", ["--config", DENSE] + corpus_copy("utf8", bad_utf8), "utf8/train.de:7", "UTF-8")

    def empty(d):
        open(os.path.join(d, "dev.en"), "w").close()
    row("empty corpus file", ["--config", DENSE] + corpus_copy("emptyfile", empty), "emptyfile/dev.en", "empty file")
    row("missing corpus", ["--config", DENSE, "--set", "data.corpus=" + os.path.join(WORK, "nowhere")],
        "nowhere/train.", "cannot open")
    spm = os.path.join(WORK, "spm-corrupt")
    write("spm-corrupt/spm.500.model", "this is not a protobuf\n")
    row("corrupt SentencePiece model", ["--config", DENSE, "--set", "data.spm_dir=" + spm],
        "spm-corrupt/spm.500.model", "not a SentencePiece model")
    blocker = write("a-file", "x")
    row("data.spm_dir is a file", ["--config", DENSE, "--set", "data.spm_dir=" + blocker],
        "--set data.spm_dir=", "is a file; expected a folder")
    row("data.vocab_size larger than the corpus allows",
        ["--config", DENSE, "--set", "data.vocab_size=100000", "--set", "data.spm_dir=" + os.path.join(WORK, "spm-big")],
        "spm.100000.model", "vocab_size 100000", "Vocabulary size too high")
    row("results dir under a regular file", ["--config", DENSE, "--output-dir", blocker + "/sub"] + FAST,
        "a-file", "cannot create directory")

    other = finished_run("other-model")
    row("checkpoint from another model", ["--config", DENSE, "--output-dir", other, "--resume",
                                          "--set", "model.d_model=48"] + FAST,
        ".ckpt", "model_fingerprint", keep=other)
    other_nodes = finished_run("other-nodes")
    row("checkpoint from another node count", ["--config", DENSE, "--output-dir", other_nodes, "--resume",
                                               "--set", "cluster.nodes=2"] + FAST,
        "step-", "holds the checkpoint files of 4 node(s), this run has 2", "cluster.nodes=4", keep=other_nodes)
    row("checkpoint from fewer nodes", ["--config", DENSE, "--output-dir", other_nodes, "--resume",
                                        "--set", "cluster.nodes=6"] + FAST,
        "step-", "holds the checkpoint files of 4 node(s), this run has 6", "cluster.nodes=4", keep=other_nodes)
    truncated = finished_run("truncated-ckpt")
    node0 = latest_node0(truncated)
    size = os.path.getsize(node0)
    with open(node0, "r+b") as f:
        f.truncate(size // 2)
    row("truncated checkpoint", ["--config", DENSE, "--output-dir", truncated, "--resume"] + FAST,
        "node-0.ckpt", "checkpoint", keep=truncated)
    flipped = finished_run("flipped-ckpt")
    node0 = latest_node0(flipped)
    with open(node0, "r+b") as f:
        f.seek(os.path.getsize(node0) // 2)
        b = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([b[0] ^ 0x40]))
    row("corrupt checkpoint (one flipped bit)", ["--config", DENSE, "--output-dir", flipped, "--resume"] + FAST,
        "node-0.ckpt", "checksum", keep=flipped)
    # a finished run shorter than train.log_every has no log.jsonl; it is a run all the same
    short = os.path.join(WORK, "short-run")
    r = subprocess.run([BIN, "--config", DENSE, "--output-dir", short, "--set", "train.max_steps=2",
                        "--set", "train.log_every=100", "--no-progress"], capture_output=True, text=True)
    if r.returncode != 0 or os.path.exists(os.path.join(short, "log.jsonl")):
        sys.exit(f"setup run short-run: exit {r.returncode}, or it wrote a log.jsonl:\n{r.stderr}")
    row("a finished run without log.jsonl", ["--config", DENSE, "--output-dir", short,
                                              "--set", "train.max_steps=2", "--no-progress"],
        "short-run", "already holds a run", keep=short)
    row("--only with --config", ["--config", DENSE, "--only", "x"], "--only requires --suite")
    # --overwrite removes the earlier run only once the data have loaded: a run that fails on
    # its corpus or vocabulary leaves it whole
    kept = finished_run("overwrite-bad-corpus")
    row("--overwrite, missing corpus", ["--config", DENSE, "--output-dir", kept, "--overwrite",
                                        "--set", "data.corpus=" + os.path.join(WORK, "nowhere")] + FAST,
        "nowhere/train.", "cannot open", keep=kept)
    row("--overwrite, corrupt SentencePiece model", ["--config", DENSE, "--output-dir", kept, "--overwrite",
                                                     "--set", "data.spm_dir=" + spm] + FAST,
        "spm-corrupt/spm.500.model", "not a SentencePiece model", keep=kept)
    # a damaged checkpoints/latest or run.json is refused, not taken for "no checkpoint" (which
    # would start again and delete the checkpoints)
    empty_latest = finished_run("empty-latest")
    write("empty-latest/checkpoints/latest", "")
    row("--resume, empty checkpoints/latest", ["--config", DENSE, "--output-dir", empty_latest, "--resume"] + FAST,
        "checkpoints/latest", "is empty", keep=empty_latest)
    dangling = finished_run("dangling-latest")
    write("dangling-latest/checkpoints/latest", "step-00000099\n")
    row("--resume, latest names no checkpoint", ["--config", DENSE, "--output-dir", dangling, "--resume"] + FAST,
        "checkpoints/latest", "step-00000099", keep=dangling)
    bad_run = finished_run("bad-run-json")
    write(os.path.relpath(os.path.dirname(latest_node0(bad_run)), WORK) + "/run.json", '{"step": 10')
    row("--resume, run.json not JSON", ["--config", DENSE, "--output-dir", bad_run, "--resume"] + FAST,
        "run.json", "damaged checkpoint", keep=bad_run)
    typed_run = finished_run("typed-run-json")
    write(os.path.relpath(os.path.dirname(latest_node0(typed_run)), WORK) + "/run.json", '{"step": "ten"}')
    row("--resume, run.json of the wrong shape", ["--config", DENSE, "--output-dir", typed_run, "--resume"] + FAST,
        "run.json", "damaged checkpoint", keep=typed_run)
    entry = {"name": "x", "config": DENSE, "set": ["train.max_steps=2"]}
    up = config("suite-up.json", {"name": "..", "experiments": [entry]})
    row("suite name ..", ["--suite", up, "--output-root", os.path.join(WORK, "root")],
        "suite-up.json:/name", "without '/'")
    lost = config("suite-lost.json", {"name": "lost", "experiments": [dict(entry, config="nope.json")]})
    row("suite entry's config missing", ["--suite", lost], "suite-lost.json:/experiments/0/config",
        "nope.json", "no such config file")
    two = config("suite-two.json", {"name": "two", "experiments": [entry, dict(entry, name="y")]})
    row("--only naming no experiment", ["--suite", two, "--output-root", os.path.join(WORK, "root"),
                                        "--only", "zzz"], "suite-two.json", "--only zzz", "x, y")
    if MPIEXEC:
        row("mpiexec -n 2, cluster.nodes=4", ["--config", DENSE, "--set", "cluster.backend=mpi",
                                              "--output-dir", os.path.join(WORK, "mpi-n")] + FAST,
            "rank ", "dense.json:/cluster/nodes", "2 ranks", launcher=[MPIEXEC, "-n", "2"])
        row("mpiexec -n 2, backend sim", ["--config", DENSE, "--set", "cluster.nodes=2",
                                          "--output-dir", os.path.join(WORK, "mpi-sim")] + FAST,
            "rank ", "dense.json:/cluster/backend", "MPI ranks", launcher=[MPIEXEC, "-n", "2"])
        # read before MPI starts, by every rank: each line says which rank it is
        row("mpiexec -n 2, bad config value", ["--config", DENSE, "--set", "cluster.backend=mpi",
                                               "--set", "cluster.nodes=2", "--set", "train.lr=x",
                                               "--output-dir", os.path.join(WORK, "mpi-lr")] + FAST,
            "rank ", ": error: --set train.lr=x:", launcher=[MPIEXEC, "-n", "2"])

    failed = 0
    print(f"{'case':40} {'rc':>3}  result / error line")
    for case, argv, expect, keep in rows:
        before = tree_digest(keep) if keep else None
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        lines = [l for l in r.stderr.splitlines() if "error:" in l or "fatal:" in l]
        line = lines[0] if lines else (r.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        problems = []
        if r.returncode != 2:
            problems.append(f"exit code {r.returncode}, expected 2")
        for s in expect:
            if s not in line:
                problems.append(f"error line lacks {s!r}")
        if keep and tree_digest(keep) != before:
            problems.append(f"files under {keep} changed")
        print(f"{case:40} {r.returncode:>3}  {'ok  ' if not problems else 'FAIL'} {line[:160]}")
        for p in problems:
            print(f"{'':46}{p}")
        if problems:
            failed += 1
            print(r.stderr[-2000:])
    # a run refused on its data leaves no empty results folder it created
    fresh = os.path.join(WORK, "never-made")
    r = subprocess.run([BIN, "--config", DENSE, "--output-dir", fresh, "--set",
                        "data.corpus=" + os.path.join(WORK, "nowhere")] + FAST, capture_output=True, text=True)
    ok = r.returncode == 2 and not os.path.exists(fresh)
    print(f"{'refused run leaves no empty folder':40} {r.returncode:>3}  {'ok  ' if ok else 'FAIL'} "
          f"{'' if ok else fresh + ' exists: ' + str(os.listdir(fresh)) if os.path.exists(fresh) else r.stderr[-500:]}")
    failed += not ok
    # not bad input: a kill between a first checkpoint's run.json and `latest` leaves a whole step
    # directory without the pointer; --resume continues from it
    unpointed = finished_run("no-latest")
    step_dir = os.path.dirname(latest_node0(unpointed))
    os.remove(os.path.join(unpointed, "checkpoints", "latest"))
    r = subprocess.run([BIN, "--config", DENSE, "--output-dir", unpointed, "--resume"] + FAST[:2] +
                       ["--set", "train.max_steps=12"] + FAST[2:], capture_output=True, text=True, timeout=60)
    ok = r.returncode == 0 and f"resumed from {step_dir}" in r.stderr
    print(f"{'--resume without checkpoints/latest':40} {r.returncode:>3}  {'ok  ' if ok else 'FAIL'} "
          f"{'resumed from ' + os.path.basename(step_dir) if ok else r.stderr[-1500:]}")
    failed += not ok
    print(f"{len(rows) + 2 - failed}/{len(rows) + 2} bad-input cases pass")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
