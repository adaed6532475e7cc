#!/usr/bin/env bash
# Submits one Slurm job (scripts/slurm/train.sbatch) per experiment.
#
# Usage: scripts/slurm/submit-suite.sh SUITE_JSON_OR_CONFIG... [--nodes N] [--partition P] [--dry-run]
#   SUITE_JSON  {"name": S, "experiments": [{"name": E, "config": C, "set": ["k=v"], "nodes": N}]}
#               -> results/S/E/, Slurm output in results/S/slurm/E-<jobid>.out
#   CONFIG      a run-experiment config (a JSON object without "experiments") -> results/<C>/
#   LIST        a text file naming one suite or config per line (# comments)
# --nodes N is the node count of experiments that do not give one (default: the config's
# cluster.nodes, else 1). SL_* variables: see scripts/slurm/README.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=${SL_REPO:-$(cd "$here/../.." && pwd)}
results=${SL_RESULTS_DIR:-$repo/results}
python=${SL_PYTHON:-python3}
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

inputs=() nodes="" partition="" dry_run=0
while (($#)); do
  case $1 in
    --nodes) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "submit-suite: --nodes needs a positive integer" >&2; exit 2; }
             nodes=$2; shift 2 ;;
    --partition) [[ $# -ge 2 && -n $2 && $2 != -* ]] || { echo "submit-suite: --partition needs a partition name" >&2; exit 2; }
                 partition=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage ;;
    -*) echo "submit-suite: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
((${#inputs[@]})) || usage
command -v "$python" >/dev/null || { echo "submit-suite: needs $python to read JSON (set SL_PYTHON)" >&2; exit 2; }
if ((!dry_run)); then
  command -v sbatch >/dev/null || { echo "submit-suite: sbatch not found (use --dry-run to see the jobs)" >&2; exit 2; }
  [[ -x ${SL_BINARY:-$repo/build/apps/run-experiment/run-experiment} ]] ||
    { echo "submit-suite: ${SL_BINARY:-$repo/build/apps/run-experiment/run-experiment}: not built (or set SL_BINARY)" >&2; exit 2; }
fi

# The JSON is expanded into one shell-quoted "submit SUITE NAME CONFIG NODES [SET...]" line
# per experiment; a bad input stops everything before the first job is submitted.
plan=$("$python" - "$results" "${nodes:-0}" "${inputs[@]}" <<'PY'
import json, os, re, shlex, sys
results, default_nodes, inputs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
SAFE = re.compile(r"^[A-Za-z0-9._+-]+$")
def fail(where, what):
    print(f"submit-suite: {where}: {what}", file=sys.stderr)
    sys.exit(2)
def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail(path, e.strerror)
    except ValueError as e:
        fail(path, f"malformed JSON ({e})")
def config_nodes(path, sets=(), chain=()):
    """cluster.nodes as run-experiment resolves it: the last --set, else the config, else its
    "extends" bases (relative to the file that names them), else 1."""
    for s in reversed(sets):
        k, v = s.split("=", 1)
        if k.strip() == "cluster.nodes":
            try:
                return int(v)
            except ValueError:
                return 0   # refused below as not a positive integer
    if os.path.abspath(path) in chain:
        fail(path, '"extends" names a config that extends it again (a cycle)')
    doc = load(path)
    c = doc.get("cluster", {}) if isinstance(doc, dict) else {}
    n = c.get("nodes") if isinstance(c, dict) else None
    if isinstance(n, int) and n > 0:
        return n
    base = doc.get("extends") if isinstance(doc, dict) else None
    if isinstance(base, str):
        base = base if os.path.isabs(base) else os.path.join(os.path.dirname(path), base)
        if not os.path.isfile(base):
            fail(path, f'"extends": {base}: no such file')
        return config_nodes(base, (), chain + (os.path.abspath(path),))
    return 1
lists = set()
def expand(path, lines, seen):
    if not path.endswith(".json"):
        if not os.path.isfile(path):
            fail(path, "no such file (expected a suite, a config or a list of them)")
        if os.path.abspath(path) in lists:
            fail(path, "a list that names itself (directly or through another list)")
        lists.add(os.path.abspath(path))
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError as e:
            fail(path, f"not UTF-8 text (byte {e.start}); expected one suite or config path per line")
        for entry in text.splitlines():
            entry = entry.split("#", 1)[0].strip()
            if entry:
                base = os.path.dirname(os.path.abspath(path))
                expand(entry if os.path.isabs(entry) else os.path.join(base, entry), lines, seen)
        return
    if not os.path.isfile(path):
        fail(path, "no such file")
    doc = load(path)
    if not isinstance(doc, dict):
        fail(path, "expected a JSON object")
    if "experiments" not in doc:  # a plain config
        name = os.path.basename(path)[:-5]
        n = default_nodes or config_nodes(path)
        if ("", name) in seen:
            fail(path, f'a second config named "{name}": both would write results/{name}/')
        seen.add(("", name))
        lines.append(["", name, os.path.abspath(path), str(n)])
        return
    suite, exps = doc.get("name"), doc["experiments"]
    if not isinstance(suite, str) or not SAFE.match(suite):
        fail(path, 'field "name": expected a folder-safe string ([A-Za-z0-9._+-])')
    if not isinstance(exps, list) or not exps:
        fail(path, 'field "experiments": expected a non-empty array')
    base = os.path.dirname(os.path.abspath(path))
    for i, e in enumerate(exps):
        where = f"{path}: experiments[{i}]"
        if not isinstance(e, dict):
            fail(where, "expected an object")
        name, config = e.get("name"), e.get("config")
        if not isinstance(name, str) or not SAFE.match(name):
            fail(where, 'field "name": expected a folder-safe string ([A-Za-z0-9._+-])')
        if (suite, name) in seen:
            fail(where, f'experiment "{name}" appears twice in suite "{suite}"')
        seen.add((suite, name))
        if not isinstance(config, str):
            fail(where, 'field "config": expected a path string')
        # Relative config paths: next to the suite file first, then from the current folder.
        if not os.path.isabs(config) and os.path.isfile(os.path.join(base, config)):
            config = os.path.join(base, config)
        if not os.path.isfile(config):
            fail(where, f'config "{e["config"]}": no such file (looked next to the suite and in {os.getcwd()})')
        sets = e.get("set", [])
        if not isinstance(sets, list) or not all(isinstance(s, str) and "=" in s for s in sets):
            fail(where, 'field "set": expected an array of "key.path=value" strings')
        n = e.get("nodes", default_nodes or config_nodes(config, sets))
        if not isinstance(n, int) or n < 1:
            fail(where, 'field "nodes": expected a positive integer')
        args = []
        for s in sets:
            args += ["--set", s]
        lines.append([suite, name, os.path.abspath(config), str(n)] + args)
lines, seen = [], set()
for p in inputs:
    if not os.path.isfile(p):
        fail(p, "a folder, expected a file" if os.path.isdir(p) else "no such file")
    expand(p, lines, seen)
if not lines:
    fail(" ".join(inputs), "no experiments to submit (an empty list?)")
for l in lines:
    print("submit " + " ".join(shlex.quote(x) for x in l))
PY
)

submitted=0
submit() {
  local suite=$1 name=$2 config=$3 n=$4; shift 4
  local outdir logdir
  if [[ -n $suite ]]; then outdir=$results/$suite/$name logdir=$results/$suite/slurm
  else outdir=$results/$name logdir=$results/slurm; fi
  local sb=(sbatch --parsable --job-name="${suite:+$suite.}$name" --nodes="$n" --ntasks-per-node=1
            --output="$logdir/$name-%j.out")
  [[ -n $partition ]] && sb+=(--partition="$partition")
  [[ ${SL_GPUS:-0} != 0 ]] && sb+=(--gres=gpu:1)
  # SL_SBATCH_ARGS: extra sbatch options, e.g. "--time=24:00:00 --account=proj".
  [[ -n ${SL_SBATCH_ARGS:-} ]] && { read -r -a extra <<<"$SL_SBATCH_ARGS"; sb+=("${extra[@]}"); }
  sb+=("$here/train.sbatch" "$config" "$@")
  local env=(SL_REPO="$repo" SL_OUTPUT_DIR="$outdir")
  if ((dry_run)); then
    printf '%q ' env "${env[@]}" "${sb[@]}"; echo
    return
  fi
  mkdir -p "$logdir" "$outdir"
  local id
  id=$(env "${env[@]}" "${sb[@]}") || { echo "submit-suite: sbatch failed for $name" >&2; exit 1; }
  echo "submitted job ${id%%;*}: ${suite:+$suite/}$name on $n node(s) -> $outdir"
  submitted=$((submitted + 1))
}
eval "$plan"
((dry_run)) || echo "submit-suite: $submitted job(s) submitted"
