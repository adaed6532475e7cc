"""The Slurm launcher of scripts/repro_v3.py (`--launcher slurm`): the same rules and the same
decisions, each decided experiment one Slurm job through scripts/slurm/submit-suite.sh (MPI
ranks on real nodes, scripts/slurm/README.md), so a cluster runs what the rules allow in
parallel instead of one experiment after another.

The jobs this driver submitted are in results/repro-v3/<model>/.slurm-jobs.json
({experiment: [job ids]}); an experiment whose job is still in `squeue` is held (not submitted
again, and the next stage's decided runs join as with a second local driver). A job that left
the queue without finishing its run is submitted again, at most MAX_TRIES times in all; then
the driver stops and names the job's Slurm output."""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SUBMIT = os.path.join(HERE, "slurm", "submit-suite.sh")
MAX_TRIES = 3
SUBMITTED = re.compile(r"^submitted job (?P<id>[^:\s]+): (?P<suite>[^/\s]+)/(?P<name>\S+) on",
                       re.M)


class LaunchError(Exception):
    """Slurm could not be asked (no squeue / sbatch, or submit-suite.sh refused)."""


def user():
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER", "")


class SlurmJobs:
    """One model's submitted jobs and which of them Slurm still holds."""

    def __init__(self, model_dir, write_json):
        self.dir, self.write_json = model_dir, write_json
        self.path = os.path.join(model_dir, ".slurm-jobs.json")
        try:
            with open(self.path) as f:
                self.jobs = json.load(f)
        except FileNotFoundError:
            self.jobs = {}
        except ValueError as e:
            raise LaunchError(f"{self.path}: malformed JSON ({e}); it lists this driver's jobs")
        self.live = set()

    def refresh(self):
        """Reads the ids of this user's jobs still in the queue (pending or running)."""
        if not any(self.jobs.values()):
            self.live = set()
            return
        try:
            p = subprocess.run(["squeue", "-h", "-o", "%i", "-u", user()], capture_output=True,
                               text=True)
        except FileNotFoundError:
            raise LaunchError("squeue not found: --launcher slurm needs Slurm's commands")
        if p.returncode != 0:
            raise LaunchError(f"squeue failed ({p.returncode}): {p.stderr.strip()}")
        self.live = {x.strip().split("_")[0] for x in p.stdout.split() if x.strip()}

    def queued(self, name):
        return any(j in self.live for j in self.jobs.get(name, []))

    def tries(self, name):
        return len(self.jobs.get(name, []))

    def last_output(self, model, name):
        ids = self.jobs.get(name) or ["?"]
        return os.path.join(self.dir, "slurm", f"{name}-{ids[-1]}.out")

    def submit(self, entries, model, config_dir, results_root, extra_sets, binary):
        """One job per entry (their config paths made absolute; extra_sets appended to each
        entry's settings, e.g. device=cuda; binary: the run-experiment every rank runs, a path
        the compute nodes see); records the job ids."""
        round_file = os.path.join(self.dir, ".slurm-round.json")
        exps = [dict(e, config=os.path.join(config_dir, e["config"]),
                     set=list(e["set"]) + list(extra_sets)) for e in entries]
        self.write_json(round_file, {"name": model, "experiments": exps})
        p = subprocess.run(["bash", SUBMIT, round_file], capture_output=True, text=True,
                           env=dict(os.environ, SL_RESULTS_DIR=results_root,
                                    SL_BINARY=os.path.abspath(binary)))
        got = {m.group("name"): m.group("id") for m in SUBMITTED.finditer(p.stdout)}
        for name, job in got.items():
            self.jobs.setdefault(name, []).append(job)
        self.write_json(self.path, self.jobs, sort_keys=True)
        if p.returncode != 0:
            raise LaunchError(f"{SUBMIT} exited {p.returncode}: "
                              f"{(p.stderr or p.stdout).strip().splitlines()[-1:]}")
        return got
