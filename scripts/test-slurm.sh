#!/usr/bin/env bash
# Brings up a private one-host Slurm (munged, slurmctld, slurmd; state under /tmp) and runs
# the real scripts/slurm job scripts through it:
#   1. a 2-task job via srun --mpi=pmi2   2. the same via mpiexec
#   3. a one-experiment suite through submit-suite.sh
#   4. preemption: USR1 (srun) or TERM (mpiexec) to the batch shell -> ranks checkpoint and
#      stop -> scontrol requeue -> the job starts again with --resume
# Exit: 0 pass, 1 fail, 77 skip (Slurm/MPI cannot be installed or run here).
#
# SL_SLURM_TEST_BINARY   run-experiment to use in job 1 (default: a stand-in MPI program
#                        compiled here that writes rank/size files); needs
# SL_SLURM_TEST_CONFIG   a config small enough for a 2-rank run within the time limit.
# SL_SLURM_TEST_DIR      private state (default /tmp/sl-slurm-test); ports
# SL_SLURM_TEST_PORT     slurmctld port (default 6917; slurmd uses the next one).
# SL_SLURM_TEST_KEEP=1   leave the daemons running (a later run reuses them).
# SL_SLURM_TEST_TIMEOUT  seconds for the whole test (default 170).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
W=${SL_SLURM_TEST_DIR:-/tmp/sl-slurm-test}
port=${SL_SLURM_TEST_PORT:-6917}
deadline=$((SECONDS + ${SL_SLURM_TEST_TIMEOUT:-170}))
host=$(hostname -s)
started=()  # pid files of the daemons this run started, stopped in reverse order at exit

say() { echo "test-slurm: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() {
  say "FAIL: $*"
  for f in "$W"/log/slurm*.log "$W"/munge/munged.log "$W"/run/*.out; do
    [[ -f $f ]] && { echo "---- tail $f"; tail -n 12 "$f"; }
  done
  exit 1
}

# shellcheck disable=SC2317  # called through the EXIT trap
stop_daemons() {
  [[ ${SL_SLURM_TEST_KEEP:-0} == 1 ]] && { say "leaving the daemons running (SL_SLURM_TEST_KEEP=1)"; return; }
  local i pidfile pid
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    pidfile=${started[i]}
    pid=$(cat "$pidfile" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    say "stopped $(basename "$pidfile" .pid) (pid $pid)"
  done
}
trap stop_daemons EXIT

# A daemon from an earlier run of this script, still alive, found through its pid file.
alive() {  # pidfile comm
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ -n $pid && $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]]
}

# ---- install ----------------------------------------------------------------------------
missing() { for c in sbatch srun scontrol sinfo slurmctld slurmd munged; do command -v "$c" >/dev/null || return 0; done; return 1; }
rm -rf "$W/run"  # job outputs of an earlier run would hide this run's
mkdir -p "$W/log" "$W/run" "$W/bin" "$W/etc" "$W/state" "$W/spool" || fail "cannot create $W"
if missing; then
  [[ $EUID == 0 ]] || skip "Slurm is not installed and installing needs root"
  command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
  say "installing slurm-wlm and munge with apt-get (log: $W/log/apt.log)"
  DEBIAN_FRONTEND=noninteractive timeout 120 apt-get install -y -q -o DPkg::Lock::Timeout=60 \
    slurm-wlm munge >"$W/log/apt.log" 2>&1 || skip "apt-get install slurm-wlm munge failed (see $W/log/apt.log)"
  missing && skip "slurm-wlm installed but its commands are not on PATH"
fi
[[ $EUID == 0 ]] || skip "slurmd must run as root here (the test runs jobs as root)"
command -v mpicc >/dev/null || skip "mpicc not found (install mpich)"
id munge >/dev/null 2>&1 || skip "no munge user (the munge package creates it)"
command -v runuser >/dev/null || skip "runuser not found (util-linux): cannot start munged as user munge"

# ---- munge ------------------------------------------------------------------------------
M=$W/munge
# munged wants its socket folder searchable by all and writable only by itself.
mkdir -p "$M" && chown munge:munge "$M" && chmod 755 "$M"
if [[ ! -s $M/munge.key ]]; then
  dd if=/dev/urandom of="$M/munge.key" bs=1024 count=1 status=none || fail "cannot write a munge key"
fi
chown munge:munge "$M/munge.key" && chmod 400 "$M/munge.key"
if alive "$M/munged.pid" munged; then
  say "reusing munged (pid $(cat "$M/munged.pid"))"
else
  rm -f "$M/munged.pid" "$M/munge.socket"*
  runuser -u munge -- munged --key-file="$M/munge.key" --socket="$M/munge.socket" \
    --pid-file="$M/munged.pid" --log-file="$M/munged.log" --seed-file="$M/munged.seed" \
    || fail "munged did not start (see $M/munged.log)"
  started+=("$M/munged.pid")
  for _ in $(seq 50); do [[ -S $M/munge.socket ]] && break; sleep 0.1; done
fi
[[ -S $M/munge.socket ]] || fail "munged socket $M/munge.socket did not appear"

# ---- slurm.conf (NOTES.md: linuxproc, task/none, cons_tres, no cgroup.conf) --------------
export SLURM_CONF=$W/etc/slurm.conf
cat >"$SLURM_CONF.new" <<EOF
ClusterName=sltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$M/munge.socket
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=300
KillWait=10
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
if ! cmp -s "$SLURM_CONF.new" "$SLURM_CONF"; then
  # Daemons of an earlier run read another config: do not reuse them.
  for d in slurmd slurmctld; do
    alive "$W/$d.pid" "$d" && { kill "$(cat "$W/$d.pid")"; sleep 1; }
  done
  mv "$SLURM_CONF.new" "$SLURM_CONF"
else
  rm -f "$SLURM_CONF.new"
fi

# ---- daemons ----------------------------------------------------------------------------
if alive "$W/slurmctld.pid" slurmctld; then
  say "reusing slurmctld (pid $(cat "$W/slurmctld.pid"))"
else
  slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
  started+=("$W/slurmctld.pid")
fi
if alive "$W/slurmd.pid" slurmd; then
  say "reusing slurmd (pid $(cat "$W/slurmd.pid"))"
else
  slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
  started+=("$W/slurmd.pid")
fi
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -n1)
  [[ $state == idle ]] && break
  [[ $state == down* || $state == drain* ]] && scontrol update nodename="$host" state=resume 2>/dev/null
  sleep 0.5
done
[[ $state == idle ]] || fail "node $host is '$state', not idle, after 30 s"
say "node $host idle (${SECONDS} s since start)"

# ---- the binary the jobs run ------------------------------------------------------------
cat >"$W/bin/mpi-standin.c" <<'EOF'
/* Stands in for run-experiment: takes its arguments, joins one MPI job, writes what it saw
 * to OUTDIR/rank-R.{started,resumed}; with SL_STANDIN_WAIT set it waits for SIGUSR1/SIGTERM,
 * "checkpoints" (OUTDIR/checkpoints/rank-R) and exits 0, as run-experiment does. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void on_signal(int s) { got = s; }
static void note(const char* dir, const char* file, int rank, const char* text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE* f = fopen(path, "w");
  if (!f) { perror(path); MPI_Abort(MPI_COMM_WORLD, 3); }
  fprintf(f, "%s\n", text);
  fclose(f);
  (void)rank;
}
int main(int argc, char** argv) {
  const char *out = NULL, *nodes = "?";
  int resume = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--output-dir") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--resume")) resume = 1;
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && !strncmp(argv[i + 1], "cluster.nodes=", 14))
      nodes = argv[++i] + 14;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: sleep() returns on the signal */
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  MPI_Init(&argc, &argv);
  int rank, size, one = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* A collective shows the ranks form one job rather than `size` singletons. */
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!out) { fprintf(stderr, "no --output-dir\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
  char host[256] = "?", text[512], file[64];
  gethostname(host, sizeof host - 1);
  snprintf(text, sizeof text, "rank=%d size=%d allreduce=%d nodes=%s resume=%d host=%s", rank,
           size, sum, nodes, resume, host);
  snprintf(file, sizeof file, "rank-%d.%s", rank, resume ? "resumed" : "started");
  note(out, file, rank, text);
  if (getenv("SL_STANDIN_WAIT") && !resume) {
    for (int t = 0; t < 90 && !got; ++t) sleep(1);
    char ck[4096];
    snprintf(ck, sizeof ck, "%s/checkpoints", out);
    mkdir(ck, 0755);
    snprintf(file, sizeof file, "checkpoints/rank-%d", rank);
    note(out, file, rank, "checkpoint");
    snprintf(text, sizeof text, "signal=%d", (int)got);
    snprintf(file, sizeof file, "rank-%d.stopped", rank);
    note(out, file, rank, text);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
EOF
mpicc -O1 -o "$W/bin/mpi-standin" "$W/bin/mpi-standin.c" 2>"$W/log/mpicc.log" || fail "mpicc failed (see $W/log/mpicc.log)"
standin=$W/bin/mpi-standin
echo '{"name": "slurm-test"}' >"$W/run/config.json"

# ---- jobs -------------------------------------------------------------------------------
job_field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# submit TAG SCRIPT CONFIG [VAR=VALUE...]: 2 tasks on this one node (the real cluster gives
# one task per node; only the count matters to the scripts). Prints the job id.
submit() {
  local tag=$1 script=$2 config=$3; shift 3
  rm -rf "$W/run/$tag" "$W/run/$tag.out"
  env SL_REPO="$repo" SL_OUTPUT_DIR="$W/run/$tag" "$@" \
    sbatch --parsable --nodes=1 --ntasks=2 --ntasks-per-node=2 --job-name="sltest-$tag" \
    --output="$W/run/$tag.out" "$repo/scripts/slurm/$script" "$config" | cut -d';' -f1
}
# wait_job ID [RESTARTS]: until the job is over (and was restarted at least RESTARTS times).
wait_job() {
  local st restarts
  while ((SECONDS < deadline)); do
    st=$(job_field "$1" JobState) restarts=$(job_field "$1" Restarts)
    case $st in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
        ((${restarts:-0} >= ${2:-0})) && { echo "$st"; return; } ;;
      PENDING)  # a requeued job may wait for its begin time; this test need not
        [[ $(job_field "$1" Reason) == BeginTime ]] && scontrol update jobid="$1" starttime=now 2>/dev/null ;;
    esac
    sleep 0.5
  done
  echo "TIMEOUT-WAITING($st)"
}
# check_ranks TAG PHASE: rank-0 and rank-1 wrote PHASE files, each from a 2-rank job.
check_ranks() {
  local r line
  for r in 0 1; do
    line=$(cat "$W/run/$1/rank-$r.$2" 2>/dev/null) || fail "$1: rank $r wrote no rank-$r.$2"
    [[ $line == "rank=$r size=2 allreduce=2 nodes=2 "* ]] || fail "$1: rank $r wrote '$line'"
  done
  say "$1: both ranks ran as one 2-rank MPI job: $(tr '\n' ' ' <"$W/run/$1/rank-1.$2")"
}

if [[ -n ${SL_SLURM_TEST_BINARY:-} ]]; then
  [[ -x $SL_SLURM_TEST_BINARY ]] || fail "SL_SLURM_TEST_BINARY=$SL_SLURM_TEST_BINARY: not an executable"
  [[ -f ${SL_SLURM_TEST_CONFIG:-} ]] || fail "SL_SLURM_TEST_BINARY needs SL_SLURM_TEST_CONFIG=<small config>"
  t0=$SECONDS
  id=$(submit real train-2nodes.sbatch "$SL_SLURM_TEST_CONFIG" SL_BINARY="$SL_SLURM_TEST_BINARY") || fail "sbatch failed"
  st=$(wait_job "$id")
  [[ $st == COMPLETED ]] || fail "run-experiment job $id ended $st"
  "${SL_PYTHON:-python3}" - "$W/run/real/summary.json" <<'PY' || fail "real: summary.json check failed"
import json, sys
s = json.load(open(sys.argv[1]))
assert s.get("status") == "complete" and s.get("nodes") == 2, s
print(f"test-slurm: real: summary.json complete, nodes 2, {s.get('steps')} steps")
PY
  say "real: run-experiment job $id COMPLETED in $((SECONDS - t0)) s"
else
  t0=$SECONDS
  id=$(submit srun train-2nodes.sbatch "$W/run/config.json" SL_BINARY="$standin") || fail "sbatch failed"
  st=$(wait_job "$id")
  [[ $st == COMPLETED ]] || fail "srun job $id ended $st"
  check_ranks srun started
  say "srun: job $id COMPLETED in $((SECONDS - t0)) s"
fi

t0=$SECONDS
id=$(submit mpiexec train.sbatch "$W/run/config.json" SL_BINARY="$standin" SL_LAUNCHER=mpiexec) || fail "sbatch failed"
st=$(wait_job "$id")
[[ $st == COMPLETED ]] || fail "mpiexec job $id ended $st"
check_ranks mpiexec started
say "mpiexec: job $id COMPLETED in $((SECONDS - t0)) s"

# submit-suite.sh: a one-experiment suite (1 node = 1 rank here) through the real sbatch.
t0=$SECONDS
cat >"$W/run/suite.json" <<'EOF'
{"name": "sltest", "experiments": [{"name": "one", "config": "config.json", "nodes": 1,
  "set": ["train.note=from the suite"]}]}
EOF
line=$(SL_BINARY="$standin" SL_RESULTS_DIR="$W/run/suite-results" \
  "$repo/scripts/slurm/submit-suite.sh" "$W/run/suite.json") || fail "submit-suite.sh failed: $line"
id=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' <<<"$line")
[[ -n $id ]] || fail "submit-suite.sh printed no job id: $line"
st=$(wait_job "$id")
[[ $st == COMPLETED ]] || fail "suite job $id ended $st"
got=$(cat "$W/run/suite-results/sltest/one/rank-0.started" 2>/dev/null)
[[ $got == "rank=0 size=1 allreduce=1 nodes=1 "* ]] || fail "suite: rank 0 wrote '$got'"
[[ -f $W/run/suite-results/sltest/slurm/one-$id.out ]] || fail "suite: no Slurm output file"
say "submit-suite: job $id COMPLETED in $((SECONDS - t0)) s: $got"

# Preemption: USR1 is what --signal=B:USR1@120 sends before a time limit, TERM what a
# preemption or scancel sends; both by hand to the batch shell. srun forwards USR1 to the
# ranks, mpiexec TERM (train.sbatch picks the signal per launcher).
check_requeue() {  # TAG SIGNAL SIGNAL-THE-RANKS-SEE LAUNCHER
  local tag=$1 sig=$2 want=$3 t0=$SECONDS id st r
  id=$(submit "$tag" train-2nodes.sbatch "$W/run/config.json" SL_BINARY="$standin" \
    SL_STANDIN_WAIT=1 SL_LAUNCHER="$4") || fail "sbatch failed"
  while ((SECONDS < deadline)) && ! [[ -f $W/run/$tag/rank-0.started && -f $W/run/$tag/rank-1.started ]]; do
    sleep 0.3
  done
  check_ranks "$tag" started
  scancel --batch --signal="$sig" "$id" || fail "scancel --batch --signal=$sig $id failed"
  st=$(wait_job "$id" 1)
  [[ $st == COMPLETED ]] || fail "$tag: job $id ended $st"
  for r in 0 1; do
    [[ $(cat "$W/run/$tag/rank-$r.stopped" 2>/dev/null) == "signal=$want" ]] ||
      fail "$tag: rank $r did not stop on signal $want ($(cat "$W/run/$tag/rank-$r.stopped" 2>/dev/null))"
    [[ -f $W/run/$tag/checkpoints/rank-$r ]] || fail "$tag: rank $r left no checkpoint"
  done
  check_ranks "$tag" resumed
  grep -q "resume=1" "$W/run/$tag/rank-0.resumed" || fail "$tag: second start lacked --resume"
  say "$tag: SIG$sig to job $id -> ranks stopped on signal $want, requeued (restarts" \
    "$(job_field "$id" Restarts)), resumed with --resume, COMPLETED in $((SECONDS - t0)) s"
}
check_requeue requeue-srun USR1 10 srun
check_requeue requeue-mpiexec TERM 15 mpiexec
say "PASS in ${SECONDS} s"
exit 0
