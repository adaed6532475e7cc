"""Reading the files of docs/LOG_FORMAT.md: JSON objects, JSON lines, experiment folders.

Nothing here knows what a run means; experiment.py builds the data model on top."""
import gzip
import json
import math
import os
import zlib

# log.jsonl of a finished run may be committed gzip-compressed (scripts/compress-logs.py):
# readers take log.jsonl.gz where log.jsonl is absent.
EXPERIMENT_FILES = ("log.jsonl", "log.jsonl.gz", "summary.json", "config.json")


def number(x):
    """x as a finite float, else None (the C++ writer turns NaN into null)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def read_json(path, note):
    """The object in path; None when the file is missing, unreadable (noted) or not an object."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else None
    except ValueError as e:
        note(f"{path}: unreadable JSON ({e}); ignored")
        return None


def run_complete(run_dir):
    """Whether run_dir's summary.json says the run finished ("complete"): only such a run's logs
    are final (run-experiment appends to and truncates them on --resume)."""
    s = read_json(os.path.join(run_dir, "summary.json"), lambda _: None)
    return isinstance(s, dict) and s.get("status") == "complete"


def open_text(path):
    """path, or path + '.gz' when only the compressed file exists, as text; None when neither.
    Opened, not tested first: compress-logs writes the .gz before it removes the plain file, so
    a reader racing it finds one of the two."""
    try:
        return open(path, encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        pass
    try:
        return gzip.open(path + ".gz", "rt", encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return None


class DamagedLog(Exception):
    """A log file that cannot be what a run wrote: a .gz cut short or corrupt, or a torn line in
    a run that says it finished. The commands print it as one line and exit 2."""


def read_jsonl(path, note=None, finished=False):
    """One object per line (path or path.gz). A torn line (a run killed mid-write) is skipped,
    not fatal, unless the run says it `finished` (its resume would have cut the line, so the file
    was damaged since): then DamagedLog, as for a .gz that ends early or does not decompress."""
    rows = []
    f = open_text(path)
    if f is None:
        return rows
    shown = getattr(f, "name", path)  # the file read: path or path.gz
    try:
        with f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    if finished:
                        raise DamagedLog(f"{shown}:{lineno}: a torn or malformed line in a run whose "
                                         "summary.json says complete (a damaged copy? restore it, "
                                         "e.g. git checkout -- the file)")
                    if note is not None:
                        note(f"{shown}:{lineno}: skipped an incomplete or malformed line")
                    continue
                if isinstance(obj, dict):
                    rows.append(obj)
    except (EOFError, OSError, zlib.error) as e:  # gzip: cut short, or not gzip at all
        raise DamagedLog(f"{shown}: cannot be read to its end ({e}): a damaged copy? restore it, "
                         "e.g. git checkout -- the file") from None
    return rows


def find_experiment_dirs(root):
    """Every folder under root holding one of EXPERIMENT_FILES, in sorted walk order (an
    experiment's own sub-folders, checkpoints/ and the like, are not searched)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if any(f in filenames for f in EXPERIMENT_FILES):
            found.append(dirpath)
            dirnames[:] = []
    return found


# Per-step values of a log (bytes, selection seconds, pairs) are written every log_every updates;
# each logged value stands for the updates since the previous row.
def piecewise_sum(points, t):
    """points: [(step, value per step)] sorted by step, each value standing for the steps since
    the previous point (the first for steps 1..its step, the last also for later steps).
    Returns the sum over steps 1..t."""
    total, prev = 0.0, 0
    for step, v in points:
        if prev >= t:
            break
        total += v * (min(step, t) - prev)
        prev = step
    if points and t > prev:
        total += points[-1][1] * (t - prev)
    return total


def bytes_points(log):
    """([(step, bytes sent at that step)] of the ordinary rows, [(step, bytes)] of the averaging
    steps) from a run's log.jsonl rows. An ordinary row's value stands for the steps since the
    previous ordinary row (as piecewise_sum reads them); an averaging step is logged
    whatever log_every is and stands for itself alone (its all-reduce of the parameters on top
    of that step's exchange), or a run logged every 100 updates would count it 100 times."""
    regular, averaging = [], []
    for r in log:
        step, sent = number(r.get("step")), number(r.get("bytes_sent"))
        if step is None or sent is None:
            continue
        averaged = "divergence" in r or (r.get("strategy") or {}).get("averaged") is True
        (averaging if averaged else regular).append((int(step), sent))
    return sorted(regular), sorted(averaging)


def cumulative_bytes(points, averaging, t):
    """Bytes of updates 1..t: the ordinary rows' piecewise sum, plus at each averaging step
    <= t what it sent beyond the ordinary rate that covers it (the next ordinary row's)."""
    total = piecewise_sum(points, t)
    for s, sent in averaging:
        if s <= t:
            rate = next((v for p, v in points if p >= s), points[-1][1] if points else 0.0)
            total += sent - rate
    return total


def logged_bytes_per_step(rows):
    """Mean bytes a node sent per update over the updates a log covers, read as bytes_points /
    cumulative_bytes read it (exact when every update is logged); None without byte rows."""
    points, averaging = bytes_points(rows)
    last = max([s for s, _ in points] + [s for s, _ in averaging], default=0)
    return cumulative_bytes(points, averaging, last) / last if last else None

