"""The data model: one Experiment per run folder (docs/LOG_FORMAT.md), read once.

Everything downstream (the virtual clock, seed variants, targets, claims, maps, figures)
takes these objects; none of it opens a run's files again. The method label comes from the
run itself (summary.json, else the last log line), never from a list kept here."""
import os

from .comm_model import upgrade_run
from .logfiles import (DamagedLog, find_experiment_dirs, logged_bytes_per_step, number, read_json,
                       read_jsonl)


class Experiment:
    def __init__(self, path, root, note):
        self.path = path
        rel = os.path.relpath(path, root)
        self.name = os.path.basename(os.path.abspath(path)) if rel == "." else rel
        self.config = read_json(os.path.join(path, "config.json"), note) or {}
        self.summary = read_json(os.path.join(path, "summary.json"), note)
        s = self.summary or {}
        finished = s.get("status") == "complete"
        self.log = read_jsonl(os.path.join(path, "log.jsonl"), note, finished)
        self.valid = read_jsonl(os.path.join(path, "valid.jsonl"), note, finished)
        last = self.log[-1] if self.log else {}
        model = self.config.get("model")
        self.model = str(model.get("type", "unknown")) if isinstance(model, dict) else "unknown"
        cluster = self.config.get("cluster")
        cluster_nodes = cluster.get("nodes") if isinstance(cluster, dict) else None
        self.nodes = next((int(n) for n in (s.get("nodes"), last.get("nodes"), cluster_nodes)
                           if number(n) is not None), None)
        self.method = next((str(m) for m in (s.get("method"), last.get("method")) if m), "?")
        # Old binaries' modeled times lack the sparse all-gather's size exchange: add it.
        upgrade_run(self.config, self.method, self.nodes, self.log, self.valid, self.summary,
                    note=lambda m: note(f"{self.name}: {m}"))
        steps = number(s.get("steps"))
        if steps is None:
            steps = number(last.get("step"))
        self.steps = int(steps) if steps is not None else 0
        # A finished run logs every train.log_every updates to its end: a log of a complete run
        # that stops earlier was cut (at a line boundary, so no torn line shows it).
        train = self.config.get("train") if isinstance(self.config.get("train"), dict) else {}
        every = number(train.get("log_every")) or 1
        logged = number(last.get("step"))
        if finished and logged is not None and self.steps and logged + every <= self.steps:
            raise DamagedLog(f"{os.path.join(path, 'log.jsonl')}: ends at update {int(logged)}, but "
                             f"summary.json says the run completed {self.steps} (logging every "
                             f"{int(every)}): a damaged copy? restore it, e.g. git checkout -- the file")
        if self.summary is None:
            self.status, self.reason = "incomplete", "no summary.json"
        else:
            self.status = str(s.get("status", "incomplete"))
            self.reason = str(s.get("reason", "")) if self.status != "complete" else ""
        self.best_bleu, self.best_step = number(s.get("best_dev_bleu")), s.get("best_step")
        if self.best_bleu is None:
            scored = [(number(v.get("bleu")), v.get("step")) for v in self.valid]
            scored = [b for b in scored if b[0] is not None]
            if scored:  # the first step that reached the maximum
                self.best_bleu = max(b for b, _ in scored)
                self.best_step = next(st for b, st in scored if b == self.best_bleu)
        self.test_bleu = number(s.get("test_bleu"))
        self.parameters = number(s.get("parameters"))
        self.bytes_per_step = number(s.get("bytes_per_step"))
        if self.bytes_per_step is None:
            self.bytes_per_step = logged_bytes_per_step(self.log)
        if not self.valid and self.log:
            note(f"{self.name}: no validation results (valid.jsonl missing or empty)")

    def label(self):
        tail = "" if self.status == "complete" else ", incomplete"
        nodes = "?" if self.nodes is None else self.nodes
        return f"{self.name} [{self.method}, {nodes}n{tail}]"


def load_experiments(root, note):
    """Every experiment under root, in find_experiment_dirs' order."""
    return [Experiment(d, root, note) for d in find_experiment_dirs(root)]


def sort_key(e):
    """The order of every per-run table and figure legend: model, nodes, method, name."""
    return (e.model, e.nodes or 0, e.method, e.name)


def by_model(exps):
    """{model type: [experiments in sort_key order]}, models in sort order."""
    out = {}
    for e in sorted(exps, key=sort_key):
        out.setdefault(e.model, []).append(e)
    return out
