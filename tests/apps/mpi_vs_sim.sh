#!/usr/bin/env bash
# Runs one tiny config on the simulated cluster and under `mpiexec -n N`, then checks that
# the final parameters (all node checkpoints) and the logs are bit-identical.
# Usage: mpi_vs_sim.sh RUN_EXPERIMENT CONFIG N WORKDIR MPIEXEC
set -euo pipefail
bin=$1 config=$2 n=$3 work=$4 mpiexec=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$bin" --config "$config" --set cluster.nodes="$n" --output-dir "$work/sim" --no-progress
"$mpiexec" -n "$n" "$bin" --config "$config" --set cluster.nodes="$n" --set cluster.backend=mpi \
  --output-dir "$work/mpi" --no-progress
python3 "$here/compare_runs.py" "$work/sim" "$work/mpi"
