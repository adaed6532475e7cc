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
    """One model's submitted jobs and which of them Slurm still holds. Read again at every
    round (refresh), under the driver's model lock, so two drivers of a model share it."""

    def __init__(self, model_dir, write_json):
        self.dir, self.write_json = model_dir, write_json
        self.path = os.path.join(model_dir, ".slurm-jobs.json")
        self.jobs, self.live, self.unknown = {}, set(), False

    def load(self):
        try:
            with open(self.path) as f:
                jobs = json.load(f)
        except FileNotFoundError:
            jobs = {}
        except ValueError as e:
            raise LaunchError(f"{self.path}: malformed JSON ({e}); it lists the model's Slurm jobs")
        if not isinstance(jobs, dict) or not all(
                isinstance(v, list) and all(isinstance(j, str) for j in v) for v in jobs.values()):
            raise LaunchError(f"{self.path}: expected {{experiment: [job id, ...]}}")
        self.jobs = jobs

    def refresh(self):
        """Reads the job table and the ids of this user's jobs still in the queue. When squeue
        fails (e.g. slurmctld busy), every recorded job counts as queued this round (nothing
        is submitted twice) and `unknown` says so; a missing squeue is an error."""
        self.load()
        self.unknown = False
        if not any(self.jobs.values()):
            self.live = set()
            return
        try:
            p = subprocess.run(["squeue", "-h", "-o", "%i", "-u", user()], capture_output=True,
                               text=True)
        except FileNotFoundError:
            raise LaunchError("squeue not found: this model's runs were submitted to Slurm "
                              f"({self.path}); run the driver where Slurm's commands are, with "
                              "--launcher slurm")
        if p.returncode != 0:
            self.unknown = True
            self.live = {j for v in self.jobs.values() for j in v}
            return p.stderr.strip()
        self.live = {x.strip().split("_")[0] for x in p.stdout.split() if x.strip()}

    def queued(self, name):
        return any(j in self.live for j in self.jobs.get(name, []))

    def tries(self, name):
        return len(self.jobs.get(name, []))

    def last_output(self, name):
        ids = self.jobs.get(name) or ["?"]
        return os.path.join(self.dir, "slurm", f"{name}-{ids[-1]}.out")

    def submit(self, entry, model, config_dir, results_root, extra_sets, binary):
        """One job for `entry` (its config path made absolute; extra_sets appended to its
        settings, e.g. device=cuda; binary: the run-experiment every rank runs, a path the
        compute nodes see), recorded at once, so a driver stopped part-way through a round
        knows every job it submitted. The job always resumes (SL_RESUME=always): a try after
        one that crashed before its first checkpoint starts the run again from update 0, as
        --resume does without a checkpoint. Returns the job id."""
        round_file = os.path.join(self.dir, ".slurm-round.json")
        exp = dict(entry, config=os.path.join(config_dir, entry["config"]),
                   set=list(entry["set"]) + list(extra_sets))
        self.write_json(round_file, {"name": model, "experiments": [exp]})
        p = subprocess.run(["bash", SUBMIT, round_file], capture_output=True, text=True,
                           env=dict(os.environ, SL_RESULTS_DIR=results_root, SL_RESUME="always",
                                    SL_BINARY=os.path.abspath(binary)))
        m = SUBMITTED.search(p.stdout)
        if m:
            self.jobs.setdefault(entry["name"], []).append(m.group("id"))
            self.write_json(self.path, self.jobs, sort_keys=True)
        if p.returncode != 0 or not m:
            raise LaunchError(f"{SUBMIT} exited {p.returncode} for {entry['name']}: "
                              f"{((p.stderr or p.stdout).strip().splitlines() or ['no output'])[-1]}")
        return m.group("id")
