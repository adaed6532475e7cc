#!/usr/bin/env python3
"""Runs the reproduction-v3 suite of one model to the end, deciding as it goes by the rules
pre-registered in configs/repro-v3/README.md (code: scripts/slanalysis/v3_rules.py):

  1. lr sweep: every method of the main comparison at the short budget, lr grid x2, seed 1;
     the grid is extended past an edge when the best lr sits on it;
  2. budget: 4-node dense at its lr to S and 2S, S = 3000, 6000, ... until they agree;
  1b. (v3.1) the lr re-tuned at S: every cell of the main comparison, seed 1, at its own
     length, grid x2 from {phase-1 lr, phase-1 lr / 2}, phase 1's rule (the run at the phase-1
     lr is the cell's phase-3 seed 1); then 4-node dense at its lr at S to 2S (the budget
     rule re-checked at that lr; S stays);
  3. main comparison at S: every cell at its lr at S, seeds 2 and 3 (seed 1 is phase 1b's run
     at that lr; seed 2 of every cell first);
  4. scaling and compression: 2-node dense and sparse+partial, drop ratios 0.9 and 0.999, at
     their lr at S.

Resumable: the state is what results/repro-v3/<model>/ holds. Each round writes
configs/repro-v3/<model>.json: every experiment that has started (the record of what ran, in
the order it was decided) and the ones decided to run next (one that never started and the
rules no longer ask for, e.g. a v3 seed at an lr phase 1b replaced, is dropped); then it runs
the first of those with run-experiment (--only; an interrupted one resumes) and decides
again, so every run starts from the newest decisions. Stop it at any time (Ctrl-C / SIGTERM)
and run the same command again.
Two drivers of the same model may run side by side (e.g. on two cores once the other model's
suite is done): each skips what the other is running (run-experiment --skip-busy) and waits
when everything left is running elsewhere.
The lr and budget decisions, with the numbers behind them, are written to
results/repro-v3/<model>/plan.json and printed; phases 3 and 4 follow from them (their runs are
the suite file's entries). Phase 4's runs join the suite as soon as everything left of phase 3
is running in another process, so the second driver does not sit idle behind the last
phase-3 run (it changes the order of runs, never their settings).
Stopping: Ctrl-C, or SIGTERM to the driver (the whole process group also works: run-experiment
runs in its own session and gets exactly one signal, from the driver), makes the running
experiment write a checkpoint and stop; a SIGKILL to the driver alone leaves its run-experiment
running: kill both. Two drivers of a model serialise their read-decide-write rounds on
results/repro-v3/<model>/.lock.

Usage: scripts/repro_v3.py MODEL [MODEL ...] [--bin RUN_EXPERIMENT] [--plan] [--until PHASE]
                           [--launcher local|slurm] [--slurm-set KEY=VALUE ...]
  MODEL      transformer | rnn; several are run in order (`rnn transformer`: once the RNN's
             suite is done, this driver works on the Transformer's beside its own driver)
  --plan     print the decisions so far and the next experiments; run and write nothing
  --until    stop after this phase: lr | budget | lr-at-S | main | scaling (default: scaling)
  --kernels  suite (default): new runs use the BLAS kernels most of the suite's finished runs
             used (OPENBLAS_CORETYPE, where this CPU runs them), so a suite continued on another
             machine runs the first machine's kernels, not others whose low-order bits differ
             (scripts/repro_v3_kernels.py); machine: the kernels OpenBLAS picks here
  --launcher slurm: each decided experiment becomes a Slurm job (scripts/repro_v3_slurm.py);
             the driver submits what the rules allow at once and looks again every
             SL_REPRO_V3_BUSY_WAIT_S seconds (120)"""
import argparse
import fcntl
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from slanalysis import v3_rules as rules  # noqa: E402
from slanalysis.logfiles import read_json, read_jsonl  # noqa: E402
from slanalysis.variants import summary_finished  # noqa: E402
import repro_v3_kernels as kernels  # noqa: E402
import repro_v3_slurm as slurm  # noqa: E402

CONFIG_DIR = os.path.join(REPO, "configs", "repro-v3")  # --config-dir (tests use a copy)
RESULTS = os.path.join(REPO, "results", "repro-v3")      # --results
PHASES = ("lr", "budget", "lr-at-S", "main", "scaling")
SEEDS = (1, 2, 3)
N = 4
K = 500
SWEEP_STEPS, SWEEP_VALID = 1500, 500
CAP = {"transformer": 48000, "rnn": 24000}  # most updates one run may have (the 2S run)
# Validation of the budget, main and scaling runs: every 200 updates, and every 25 in the last
# 25% (steps-to-target resolve to 25 updates where the curves flatten); the 1-node run at equal
# tokens validates at the same token positions (x N).
VALID_EVERY, FINAL_EVERY, FINAL_FRACTION = 200, 25, 0.25
# A log.jsonl line every 100 updates (averaging steps are always logged): a 12000-update run's
# log stays ~130 KB, so the committed results stay small enough to clone and to carry.
LOG_EVERY = 100
# How often a driver whose every next experiment is held elsewhere looks again (tests: less).
BUSY_WAIT_S = float(os.environ.get("SL_REPRO_V3_BUSY_WAIT_S", "120"))

# The methods of the main comparison: name -> (nodes, config settings).
METHODS = {
    "1node-dense": (1, ["distributed.method=dense"]),
    "4node-dense": (N, ["distributed.method=dense"]),
    "4node-sparse": (N, ["distributed.method=sparse"]),
    f"4node-sparse-partial-k{K}": (N, ["distributed.method=sparse", "distributed.combiner=partial",
                                       f"distributed.average_every={K}"]),
    f"4node-sparse-sum-k{K}": (N, ["distributed.method=sparse", "distributed.combiner=sum",
                                   f"distributed.average_every={K}"]),
    f"4node-sparse-error-k{K}": (N, ["distributed.method=sparse", "distributed.combiner=error",
                                     f"distributed.average_every={K}"]),
    f"4node-fedavg-k{K}": (N, ["distributed.method=fedavg", f"distributed.average_every={K}"]),
}
# The paper's descendants (issue 30, BEYOND.md; added to the pre-registration on 2026-12-06
# before any of their runs, configs/repro-v3/README.md "Descendants"): the same rules, their
# sources' knobs; DeMo's sign update gets its own lr grid, a factor 8 lower.
DESCENDANTS = {
    "4node-powersgd-r4": (N, ["distributed.method=powersgd", "distributed.powersgd.rank=4",
                              "distributed.powersgd.warmup_steps=200"]),
    f"4node-diloco-h{K}": (N, ["distributed.method=diloco", f"distributed.average_every={K}",
                               "distributed.diloco.outer_lr=0.7",
                               "distributed.diloco.outer_momentum=0.9"]),
    "4node-demo": (N, ["distributed.method=demo", "train.optimizer=sign"]),
}
METHODS.update(DESCENDANTS)
LR_GRID = {"4node-demo": (0.000125, 0.00025, 0.0005, 0.001)}  # others: rules.LR_GRID
LR_RANGE = {"4node-demo": (rules.LR_MIN / 8, rules.LR_MAX / 8)}  # others: rules' limits
# Seeds of the descendants' main runs: 3 for the Transformer, 1 for the RNN (issue 30).
DESCENDANT_SEEDS = {"transformer": (1, 2, 3), "rnn": (1,)}


def lr_sets(lr):
    return [f"train.lr={rules.lr_label(lr)}", f"train.warmup={rules.warmup_for(lr)}"]


def experiment(model, name, nodes, sets):
    return {"name": f"{model}-{name}", "config": f"{model}-model.json", "nodes": nodes,
            "set": sets}


class Suite:
    """The model's results and its growing suite file."""

    def __init__(self, model):
        self.model = model
        self.dir = os.path.join(RESULTS, model)
        self.file = os.path.join(CONFIG_DIR, f"{model}.json")
        old = read_json(self.file, print) if os.path.isfile(self.file) else None
        self.experiments = old["experiments"] if old else []
        self.plan = {"model": model, "rules": "configs/repro-v3/README.md"}
        self.wanted = set()   # names this round's decisions asked for (write() keeps them)
        self.order = []       # the same, in the order decided

    def summary(self, name):
        return read_json(os.path.join(self.dir, f"{self.model}-{name}", "summary.json"), print)

    def complete(self, name):
        """Finished: complete, or stopped on a non-finite loss (train.on_nonfinite = stop), which
        is a result too (the run diverged; it ranks last in the lr sweep)."""
        s = self.summary(name)
        return summary_finished(s)

    def final_dev_ce(self, name, steps):
        """The last validation's dev CE if it is at the run's end (None: diverged or missing)."""
        rows = read_jsonl(os.path.join(self.dir, f"{self.model}-{name}", "valid.jsonl"))
        last = rows[-1] if rows else {}
        ce = last.get("dev_ce")
        ok = last.get("step") == steps and isinstance(ce, (int, float)) and math.isfinite(ce)
        return ce if ok else None

    def test_bleu(self, name):
        s = self.summary(name) or {}
        return s.get("test_bleu")

    def started(self, entry):
        return os.path.isdir(os.path.join(self.dir, entry["name"]))

    def check(self, entry, what):
        """Conflict when the run's config.json contradicts `entry` (what: whose settings)."""
        bad = self.disagreement(entry)
        if bad:
            raise Conflict(f"{os.path.join(self.dir, entry['name'], 'config.json')}: the run "
                           f"there disagrees with {what} ({bad})")

    def disagreement(self, entry):
        """What the run's config.json (as run-experiment resolved it) contradicts among the
        entry's settings and node count: '' when nothing, or when the run has no config yet.
        A run made elsewhere and moved in (the post-hoc runs of the v3.1 amendment) is checked
        like any other."""
        cfg = read_json(os.path.join(self.dir, entry["name"], "config.json"), lambda _: None)
        if not cfg:
            return ""
        bad = []
        for kv in entry["set"] + [f"cluster.nodes={entry['nodes']}"]:
            key, want = kv.split("=", 1)
            got = cfg
            for part in key.split("."):
                got = got.get(part) if isinstance(got, dict) else None
            if not same_setting(got, want):
                bad.append(f"{key} is {json.dumps(got)}, not {want}")
        return "; ".join(bad)

    def want(self, entries):
        """Puts the entries in the suite (appended; an entry of that name that never started is
        replaced, so it runs with the settings decided now); returns those unfinished.
        An entry that started with other settings is a conflict the rules cannot resolve."""
        index = {e["name"]: i for i, e in enumerate(self.experiments)}
        for e in entries:
            if e["name"] not in index:   # the record's runs are checked once, in decide()
                self.check(e, "the settings the rules give it")
            if e["name"] not in self.wanted:
                self.wanted.add(e["name"])
                self.order.append(e["name"])
            i = index.get(e["name"])
            if i is None:
                index[e["name"]] = len(self.experiments)
                self.experiments.append(e)
            elif self.experiments[i] != e:
                if self.started(e):
                    raise Conflict(f"{self.file}: experiment {e['name']!r} has started (results in "
                                   f"{os.path.join(self.dir, e['name'])}) with settings "
                                   f"{self.experiments[i]['set']}, but the rules now give "
                                   f"{e['set']}")
                self.experiments[i] = e
        return [e for e in entries if not self.complete(e["name"][len(self.model) + 1:])]

    def record(self):
        """The suite file's experiments: every one that started (in the order they were
        decided), then those wanted this round that have not, in the order decided now, so
        run-experiment, which goes down the file, takes them in the rules' order."""
        started = [e for e in self.experiments if self.started(e)]
        by_name = {e["name"]: e for e in self.experiments}
        done = {e["name"] for e in started}
        return started + [by_name[n] for n in self.order if n not in done]

    def write(self):
        self.experiments = self.record()
        write_json(self.file, {"name": self.model, "experiments": self.experiments})
        write_json(os.path.join(self.dir, "plan.json"), self.plan, sort_keys=True)


class Conflict(Exception):
    """The suite's record and the rules disagree about an experiment that already ran."""


def same_setting(got, want):
    """A resolved config value against a `--set` string: booleans as true / false, numbers to
    float32 precision (config.json holds float32 settings as 0.1, or widened, 0.10000000149, from
    binaries before 2026-12-07), text exactly."""
    if isinstance(got, bool):
        return want == ("true" if got else "false")
    if isinstance(got, (int, float)):
        try:
            w = float(want)
        except ValueError:
            return False
        return math.isclose(got, w, rel_tol=1e-6, abs_tol=1e-12)
    return isinstance(got, str) and got == want


def write_json(path, obj, sort_keys=False):
    """Atomically (temp file, fsync, rename); a stop mid-write leaves the old file and no temp."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=1, sort_keys=sort_keys)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# Phase 1 -------------------------------------------------------------------------------------
def sweep_name(method, lr):
    return f"lr-{method}-lr{rules.lr_label(lr)}"


def sweep_entry(model, method, lr):
    nodes, sets = METHODS[method]
    return experiment(model, sweep_name(method, lr), nodes,
                      sets + lr_sets(lr) + ["seed=1", f"train.max_steps={SWEEP_STEPS}",
                                            f"valid.every={SWEEP_VALID}", "valid.final_every=0",
                                            "valid.test_at_end=false"])


def phase_lr(s):
    """Returns ({method: chosen lr}, the experiments still to run)."""
    chosen, todo, table = {}, [], {}
    for method in METHODS:
        tried = {}
        lrs = list(LR_GRID.get(method, rules.LR_GRID))
        while True:
            entries = [sweep_entry(s.model, method, lr) for lr in lrs]
            missing = s.want(entries)
            if missing:
                todo += missing
                break
            tried = {lr: s.final_dev_ce(sweep_name(method, lr), SWEEP_STEPS) for lr in lrs}
            best, nxt = rules.choose_lr(tried, *LR_RANGE.get(method, (rules.LR_MIN, rules.LR_MAX)))
            if nxt is None:
                chosen[method] = best
                break
            lrs.append(nxt)
        table[method] = {"final_dev_ce": {rules.lr_label(k): v for k, v in sorted(tried.items())},
                         "chosen_lr": chosen.get(method)}
    s.plan["lr"] = table
    return chosen, todo


# Phase 2 -------------------------------------------------------------------------------------
def run_sets(lr, steps, nodes_factor=1):
    return lr_sets(lr) + [f"train.max_steps={steps}", f"valid.every={VALID_EVERY * nodes_factor}",
                          f"valid.final_every={FINAL_EVERY * nodes_factor}",
                          f"valid.final_fraction={FINAL_FRACTION}", "valid.test_at_end=true",
                          "train.checkpoint_every=500", f"train.log_every={LOG_EVERY}"]


def main_name(method, S, seed):
    return f"{method}-S{S}-s{seed}"


def main_entry(model, method, S, seed, lr, steps=None, nodes_factor=1, name=None, extra=()):
    nodes, sets = METHODS[method]
    return experiment(model, name or main_name(method, S, seed), nodes,
                      sets + run_sets(lr, steps or S, nodes_factor) + [f"seed={seed}"] +
                      list(extra))


def phase_budget(s, lr):
    """Returns (S or None, experiments still to run)."""
    finals = {}
    S = rules.S_START
    while S <= CAP[s.model]:
        name = main_name("4node-dense", S, 1)
        if s.complete(name):
            finals[S] = (s.final_dev_ce(name, S), s.test_bleu(name))
        S *= 2
    chosen, nxt, status = rules.choose_budget(finals, CAP[s.model])
    s.plan["budget"] = {"runs": {str(k): {"final_dev_ce": v[0], "test_bleu": v[1]}
                                 for k, v in sorted(finals.items())},
                        "S": chosen, "status": status, "cap": CAP[s.model]}
    if nxt is not None:
        return None, s.want([main_entry(s.model, "4node-dense", nxt, 1, lr)])
    return chosen, []


# Phase 1b (v3.1) -------------------------------------------------------------------------------
# The cells of the main comparison: name -> (method, run length in units of S). The 1-node
# control is two cells, each tuned at its own length. Order: the claims' cells first, so a
# partial phase 1b has answered the most.
CELLS = {"4node-dense": ("4node-dense", 1), "4node-sparse": ("4node-sparse", 1)}
CELLS.update({m: (m, 1) for m in METHODS if m.startswith("4node-") and m not in DESCENDANTS})
CELLS.update({"1node-dense-equal-updates": ("1node-dense", 1),
              "1node-dense-equal-tokens": ("1node-dense", N)})
CELLS.update({m: (m, 1) for m in DESCENDANTS})


def same_lr(a, b):
    return rules.lr_label(a) == rules.lr_label(b)


def stem(cell, lr, lr1, S):
    """A cell's runs at lr: `<cell>-S<S>` at the phase-1 lr lr1 (the v3 phase-3 names, so those
    runs count), `<cell>-lr<lr>-S<S>` at any other."""
    return f"{cell}-S{S}" if same_lr(lr, lr1) else f"{cell}-lr{rules.lr_label(lr)}-S{S}"


def cell_entry(model, cell, S, seed, lr, lr1):
    method, f = CELLS[cell]
    return main_entry(model, method, S, seed, lr, steps=f * S, nodes_factor=f,
                      name=f"{stem(cell, lr, lr1, S)}-s{seed}")


def phase_lr_at_S(s, lrs, S):
    """Returns ({cell: its lr at S}, the experiments still to run); a cell still being tuned
    (or whose every run diverged) has no entry."""
    chosen, todo, table = {}, [], {}
    for cell, (method, f) in CELLS.items():
        lr1 = lrs[method]
        lo, hi = LR_RANGE.get(method, (rules.LR_MIN, rules.LR_MAX))
        grid = [lr1, lr1 / 2] if lr1 / 2 >= lo * (1 - 1e-9) else [lr1, lr1 * 2]
        finals, bleus, best = {}, {}, None
        while True:
            missing = s.want([cell_entry(s.model, cell, S, 1, lr, lr1) for lr in grid])
            names = {lr: f"{stem(cell, lr, lr1, S)}-s1" for lr in grid}
            names = {lr: n for lr, n in names.items() if s.complete(n)}  # shown while others run
            finals = {lr: s.final_dev_ce(n, f * S) for lr, n in names.items()}
            bleus = {lr: s.test_bleu(n) for lr, n in names.items()}
            if missing:
                todo += missing
                break
            best, nxt = rules.choose_lr(finals, lo, hi)
            if best is None:
                # every lr diverged (README v3.1): go on below the smallest, within the range
                low = min(grid) / 2
                nxt = low if low >= lo * (1 - 1e-9) else None
            if nxt is None:
                break
            grid.append(nxt)
        if best is not None and not missing:
            chosen[cell] = best
        table[cell] = {"method": method, "phase1_lr": lr1, "steps": f * S,
                       "running": bool(missing),
                       "to_run": [rules.lr_label(lr) for lr in grid
                                  if any(e["name"].endswith(f"-{stem(cell, lr, lr1, S)}-s1")
                                         for e in missing)],
                       "final_dev_ce": {rules.lr_label(k): v for k, v in sorted(finals.items())},
                       "test_bleu": {rules.lr_label(k): v for k, v in sorted(bleus.items())},
                       "chosen_lr": chosen.get(cell),
                       "cell": f"{s.model}-{stem(cell, chosen[cell], lr1, S)}"
                               if cell in chosen else None}
    s.plan["lr_at_S"] = table
    return chosen, todo


def phase_budget_at_lr(s, lrs, lrS, S):
    """4-node dense at its lr at S, seed 1, to 2S: phase 2's rule re-checked at that lr (S
    stays: it is informative only). Returns the experiments still to run."""
    lr, lr1 = lrS.get("4node-dense"), lrs["4node-dense"]
    if lr is None:
        return []
    rec = {"lr": lr, "S": S, "status": "not run: 2S exceeds the cap"}
    s.plan["budget_at_lr_at_S"] = rec
    if 2 * S > CAP[s.model]:
        return []
    short, long = f"{stem('4node-dense', lr, lr1, S)}-s1", f"{stem('4node-dense', lr, lr1, 2 * S)}-s1"
    todo = s.want([main_entry(s.model, "4node-dense", S, 1, lr, steps=2 * S, name=long)])
    rec["runs"] = {}
    for steps, name in ((S, short), (2 * S, long)):
        if s.complete(name):
            rec["runs"][str(steps)] = {"run": f"{s.model}-{name}",
                                       "final_dev_ce": s.final_dev_ce(name, steps),
                                       "test_bleu": s.test_bleu(name)}
    if todo:
        rec["status"] = "running"
    else:
        pair = [(rec["runs"].get(str(n)) or {}) for n in (S, 2 * S)]
        met = rules.within(*[(r.get("final_dev_ce"), r.get("test_bleu")) for r in pair])
        rec["status"] = "met" if met else "not met"
    return todo


# Phases 3 and 4 ------------------------------------------------------------------------------
def phase_main(s, lrs, lrS, S):
    """Seeds 2 and 3 of every cell whose lr at S is decided (seed 1: its phase-1b run)."""
    entries = []
    for seed in SEEDS[1:]:
        for cell in CELLS:
            if cell in DESCENDANTS and seed not in DESCENDANT_SEEDS[s.model]:
                continue
            if cell in lrS:
                entries.append(cell_entry(s.model, cell, S, seed, lrS[cell], lrs[CELLS[cell][0]]))
    return s.want(entries)


def phase_scaling(s, lrs, lrS, S):
    partial = f"4node-sparse-partial-k{K}"
    entries = []
    for method, name in (("4node-dense", "2node-dense"), (partial, f"2node-sparse-partial-k{K}")):
        if method in lrS:
            entries.append(main_entry(s.model, method, S, 1, lrS[method], extra=["cluster.nodes=2"],
                                      name=f"{stem(name, lrS[method], lrs[method], S)}-s1"))
    for rho in ("0.9", "0.999") if partial in lrS else ():
        entries.append(main_entry(s.model, partial, S, 1, lrS[partial],
                                  extra=[f"distributed.drop_ratio={rho}"],
                                  name=f"{stem(f'{partial}-rho{rho}', lrS[partial], lrs[partial], S)}-s1"))
    for e in entries:
        e["nodes"] = 2 if "cluster.nodes=2" in e["set"] else e["nodes"]
        e["set"] = [x for x in e["set"] if x != "cluster.nodes=2"]
    return s.want(entries)


def decide(s, until, held=None):
    """The experiments to run next (empty: the suite is done up to `until`). held(s, entry):
    another process is running it; when every experiment left of a stage is held, the next
    stage's runs join as far as their settings are decided (phase 3 of the cells already tuned
    while phase 1b finishes, phase 4 while phase 3 does), so a second driver does not idle."""
    for e in s.experiments:   # the record's runs, the finished budget runs included
        s.check(e, f"its entry in {s.file}")
    lrs, todo = phase_lr(s)
    if todo or until == "lr":
        return todo
    S, todo = phase_budget(s, lrs["4node-dense"])
    if todo or S is None or until == "budget":
        return todo
    lrS, todo = phase_lr_at_S(s, lrs, S)
    stages = (("lr-at-S", lambda: []),
              ("main", lambda: phase_budget_at_lr(s, lrs, lrS, S) + phase_main(s, lrs, lrS, S)),
              ("scaling", lambda: phase_scaling(s, lrs, lrS, S)))
    for phase, more in stages:
        todo += more()
        if until == phase or (todo and not (held and all(held(s, e) for e in todo))):
            return todo
    return todo


HOLDER = re.compile(r"^run-experiment pid (?P<pid>[0-9]+) on host (?P<host>\S+)")


def busy(s, entry):
    """True when another live process holds the experiment's results-directory lock (a second
    driver of the same model is running it). run-experiment writes "run-experiment pid N on
    host H" into the .lock it holds: on this host, N alive and running run-experiment decides,
    without touching the lock (a probe with flock(2) could, for an instant, make that run's
    own start see the lock taken); otherwise (another host, or no holder written yet) a
    non-blocking flock(2) probe, as run-experiment takes it."""
    path = os.path.join(s.dir, entry["name"], ".lock")
    try:
        with open(path) as f:
            m = HOLDER.match(f.read())
    except OSError:
        return False
    if m and m.group("host") == socket.gethostname():
        try:
            with open(f"/proc/{m.group('pid')}/cmdline", "rb") as f:
                return b"run-experiment" in f.read()
        except OSError:
            return False   # that process is gone: a stale lock, the next run takes it over
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def next_to_run(s, todo, busy):
    """The experiment this round runs: the first of `todo` in the suite file's order that no
    other process holds, so a started, unfinished run (it keeps its place) resumes before the
    rest, which follow in this round's order of decision; None if every one is held."""
    wanted = {e["name"] for e in todo}
    return next((e for e in s.experiments if e["name"] in wanted and not busy(s, e)), None)


def run_suite(s, binary, name):
    # One experiment per round (--only): the next round decides again, so a run that a newer
    # decision no longer wants (or wants later) is never started from a stale list.
    # --skip-busy: should another driver of this model take it first, it is left to that one.
    cmd = [binary, "--suite", s.file, "--output-root", RESULTS, "--no-progress", "--skip-busy",
           "--only", name]
    print("repro_v3:", " ".join(cmd), flush=True)
    # Its own session: a signal to the driver's process group does not reach it too, so it gets
    # exactly one (a second signal makes run-experiment exit at once, without its checkpoint).
    p = subprocess.Popen(cmd, cwd=REPO, start_new_session=True)
    try:
        return p.wait()
    except KeyboardInterrupt:
        p.send_signal(signal.SIGTERM)
        while True:
            try:
                p.wait()
                break
            except KeyboardInterrupt:  # a second stop request: the child is already stopping
                continue
        raise


class ModelLock:
    """results/repro-v3/<model>/.lock, held for one read-decide-write round: two drivers of a
    model must not decide on each other's half-written suite file."""

    def __init__(self, model):
        d = os.path.join(RESULTS, model)
        os.makedirs(d, exist_ok=True)
        self.path = os.path.join(d, ".lock")

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def main():
    global RESULTS, CONFIG_DIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="+", choices=sorted(CAP),
                    help="one or more models, run in this order (e.g. `rnn transformer`: when the "
                         "RNN's suite is done this driver helps with the Transformer's)")
    ap.add_argument("--bin", default=os.path.join(REPO, "build/apps/run-experiment/run-experiment"))
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--until", choices=PHASES, default="scaling")
    ap.add_argument("--launcher", choices=("local", "slurm"), default="local",
                    help="local: run-experiment here, one experiment after another (default); "
                         "slurm: one Slurm job per decided experiment through "
                         "scripts/slurm/submit-suite.sh (MPI ranks on real nodes), as many at "
                         "once as the rules allow (scripts/repro_v3_slurm.py)")
    ap.add_argument("--slurm-set", action="append", default=[], metavar="KEY=VALUE",
                    help="with --launcher slurm: a setting added to every job (e.g. "
                         "device=cuda on a GPU cluster); repeatable")
    ap.add_argument("--kernels", choices=("suite", "machine"), default="suite",
                    help="suite: run new experiments on the BLAS kernels the suite's finished "
                         "runs used (OPENBLAS_CORETYPE, where this CPU runs them): other "
                         "kernels change the low-order bits; machine: those OpenBLAS picks here")
    ap.add_argument("--results", default=RESULTS, metavar="DIR",
                    help="results tree (default results/repro-v3); e.g. a separate tree for "
                         "GPU runs, whose numbers differ from the CPU runs'")
    ap.add_argument("--config-dir", default=CONFIG_DIR, metavar="DIR",
                    help="folder with <model>-model.json and the suite records <model>.json "
                         "(default configs/repro-v3; a copy of it for a separate tree)")
    a = ap.parse_args()
    RESULTS, CONFIG_DIR = os.path.abspath(a.results), os.path.abspath(a.config_dir)
    if not os.path.isdir(CONFIG_DIR):   # its <model>-model.json is what every run extends
        print(f"repro_v3: --config-dir {a.config_dir}: not a folder (a copy of configs/repro-v3 "
              f"for a separate tree)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for model in a.model:
            rc = drive(model, a)
            if rc != 0:
                return rc
    except KeyboardInterrupt:  # while deciding, writing or waiting: nothing half done
        print("repro_v3: stopped; run the same command again to continue", file=sys.stderr)
        return 130
    return 0


def drive(model, a):
    """Runs (or with --plan, shows) one model's suite to the end of phase a.until."""
    if a.kernels == "suite":
        pin_kernels(model)
    if a.launcher == "slurm" and not a.plan:
        return drive_slurm(model, a)
    if not a.plan:
        # A local driver cannot see a Slurm job that has not started (no lock yet): it leaves
        # a model with queued Slurm jobs to the Slurm driver.
        jobs = slurm.SlurmJobs(os.path.join(RESULTS, model), write_json)
        try:
            jobs.refresh()
        except slurm.LaunchError as e:
            print(f"repro_v3: {e}", file=sys.stderr)
            return 2
        queued = sorted(n for n in jobs.jobs if jobs.queued(n))
        if queued:
            print(f"repro_v3: {model}: {len(queued)} experiment(s) of this model are in the Slurm "
                  f"queue ({', '.join(queued[:3])}{', ...' if len(queued) > 3 else ''}; "
                  f"{jobs.path}{'; squeue failed, so every recorded job counts' if jobs.unknown else ''}): "
                  "run this model's driver with --launcher slurm, or locally once none is queued",
                  file=sys.stderr)
            return 2
    while True:
        try:
            if a.plan:
                s = Suite(model)
                todo = decide(s, a.until)
            else:
                with ModelLock(model):
                    s = Suite(model)
                    todo = decide(s, a.until, busy)
                    s.write()
        except Conflict as e:
            print(f"repro_v3: {e}", file=sys.stderr)
            return 2
        print(json.dumps(s.plan, indent=1, sort_keys=True))
        if a.plan or not todo:
            print(f"repro_v3: {model}: " + (f"{len(todo)} experiment(s) to run next: " +
                  ", ".join(e["name"] for e in todo) if todo else f"done up to phase {a.until}"))
            return 0
        if all(busy(s, e) for e in todo):
            # Everything left is running in another driver: wait for its results, which the
            # next decision may need (e.g. a budget run), instead of spinning.
            print(f"repro_v3: {model}: every experiment to run next is running in another "
                  f"process ({', '.join(e['name'] for e in todo)}); waiting {BUSY_WAIT_S} s",
                  flush=True)
            time.sleep(BUSY_WAIT_S)
            continue
        if not os.access(a.bin, os.X_OK):
            print(f"repro_v3: {a.bin}: not built (bash scripts/build.sh)", file=sys.stderr)
            return 2
        e = next_to_run(s, todo, busy)
        rc = run_suite(s, a.bin, e["name"])
        if rc != 0 and not s.complete(e["name"][len(model) + 1:]) and not busy(s, e):
            # A failed experiment (e.g. diverged with on_nonfinite=stop) is still decided on;
            # anything else stops the driver.
            print(f"repro_v3: run-experiment exited {rc}; unfinished: {e['name']}",
                  file=sys.stderr)
            return rc

USER_CORETYPE = os.environ.get("OPENBLAS_CORETYPE")


def pin_kernels(model):
    """OPENBLAS_CORETYPE for this model's new runs (run-experiment and Slurm jobs inherit it)."""
    user = dict(os.environ)
    if USER_CORETYPE is None:
        user.pop("OPENBLAS_CORETYPE", None)  # a pin of the previous model is not the user's
    else:
        user["OPENBLAS_CORETYPE"] = USER_CORETYPE
    updates, message = kernels.choose(kernels.suite_kernels(os.path.join(RESULTS, model)), user,
                                      kernels.cpu_flags())
    if USER_CORETYPE is None:
        os.environ.pop("OPENBLAS_CORETYPE", None)
    os.environ.update(updates)
    if message:
        print(f"repro_v3: {model}: {message}", flush=True)


def drive_slurm(model, a):
    """drive() with Slurm: every decided experiment that is neither finished nor in the queue
    is submitted; the driver looks again every BUSY_WAIT_S seconds until the phase is done.
    Each round (the job table read, the decisions, the submissions) holds the model lock, so
    two drivers of a model never submit an experiment twice."""
    jobs = slurm.SlurmJobs(os.path.join(RESULTS, model), write_json)
    try:
        while True:
            with ModelLock(model):
                s = Suite(model)
                trouble = jobs.refresh()

                def held(s, e):   # the queue first: no lock probe of a job on another host
                    return jobs.queued(e["name"]) or busy(s, e)
                todo = decide(s, a.until, held)
                s.write()
                fresh = [e for e in todo if not held(s, e)]
                spent = [e["name"] for e in fresh if jobs.tries(e["name"]) >= slurm.MAX_TRIES]
                if spent:
                    print(f"repro_v3: {spent[0]}: {slurm.MAX_TRIES} Slurm jobs ended without "
                          f"finishing it; see {jobs.last_output(spent[0])}", file=sys.stderr)
                    return 1
                for e in fresh:
                    job = jobs.submit(e, model, CONFIG_DIR, RESULTS, a.slurm_set, a.bin)
                    print(f"repro_v3: {model}: submitted {e['name']} (job {job})", flush=True)
            if not todo:
                print(json.dumps(s.plan, indent=1, sort_keys=True))
                print(f"repro_v3: {model}: done up to phase {a.until}")
                return 0
            if trouble:
                print(f"repro_v3: squeue failed ({trouble}); every recorded job counts as queued "
                      f"this round", file=sys.stderr, flush=True)
            elif not fresh:
                print(f"repro_v3: {model}: {len(todo)} experiment(s) queued or running; "
                      f"looking again in {BUSY_WAIT_S} s", flush=True)
            time.sleep(BUSY_WAIT_S)
    except Conflict as e:
        print(f"repro_v3: {e}", file=sys.stderr)
        return 2
    except slurm.LaunchError as e:
        print(f"repro_v3: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
