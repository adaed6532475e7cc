#!/usr/bin/env bash
# The clock validation runs (issue 29): each method x ranks x rate as MPI ranks over the
# rate-limited loopback of scripts/netem-cluster.sh, logging every step. Then
#   python3 scripts/analyze.py clock-validation results/clock
# fits the model on the 2-rank runs, checks it on the 4-rank runs, and writes
# results/clock/validation.{json,md} and the figure.
#
# Usage: scripts/clock-validation.sh [--bin RUN_EXPERIMENT] [--out DIR] [--rates LIST]
#          [--ranks LIST] [--methods LIST] [--steps N] [--model transformer|rnn]
#   defaults: build/apps/run-experiment/run-experiment, results/clock/runs,
#             100mbit,1gbit,10gbit, 2,4, dense,sparse,partial,fedavg, 60 steps, transformer
# Methods: dense; sparse (gradient dropping); partial (sparse+partial, averaging every 20 steps
# so averaging traffic is in the measurement); fedavg (averaging every 20 steps). Drop-ratio
# warm-up off, so every sparse step sends the same number of pairs. The configured network of
# each run is the emulated one as the model sees it: bandwidth RATE / N per node (the ranks
# share the loopback's one queue: netem-cluster.sh), latency 0.
# Needs root (network namespaces). Run it on an otherwise idle machine: 4 ranks share 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/apps/run-experiment/run-experiment out=results/clock/runs
rates=100mbit,1gbit,10gbit ranks=2,4 methods=dense,sparse,partial,fedavg steps=60 model=transformer
while [[ $# -gt 0 ]]; do
  case $1 in
    --bin) bin=$2 ;; --out) out=$2 ;; --rates) rates=$2 ;; --ranks) ranks=$2 ;;
    --methods) methods=$2 ;; --steps) steps=$2 ;; --model) model=$2 ;;
    *) echo "usage: $0 [--bin B] [--out DIR] [--rates L] [--ranks L] [--methods L] [--steps N] [--model M]" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x $bin ]] || { echo "clock-validation: $bin: not built" >&2; exit 2; }
command -v mpiexec >/dev/null || { echo "clock-validation: mpiexec not found (apt-get install mpich)" >&2; exit 2; }
mkdir -p "$out"

method_sets() {
  case $1 in
    dense) echo "distributed.method=dense" ;;
    sparse) echo "distributed.method=sparse" ;;
    partial) echo "distributed.method=sparse distributed.combiner=partial distributed.average_every=20" ;;
    fedavg) echo "distributed.method=fedavg distributed.average_every=20" ;;
    *) echo "clock-validation: unknown method $1" >&2; exit 2 ;;
  esac
}
gbps() {  # 100mbit -> 0.1
  awk -v r="$1" 'BEGIN { v = r + 0; u = r; sub(/^[0-9.]+/, "", u);
    m = (u == "gbit") ? 1 : (u == "mbit") ? 1e-3 : (u == "kbit") ? 1e-6 : 1e-9; printf "%.9g", v * m }'
}

for rate in ${rates//,/ }; do
  for n in ${ranks//,/ }; do
    for m in ${methods//,/ }; do
      dir=$out/$model-$m-n$n-$rate
      if [[ -f $dir/summary.json ]] && grep -q '"complete"' "$dir/summary.json"; then
        echo "clock-validation: $dir done; skipped" >&2; continue
      fi
      bw=$(awk -v g="$(gbps "$rate")" -v n="$n" 'BEGIN { printf "%.9g", g / n }')
      sets=()
      for s in $(method_sets "$m"); do sets+=(--set "$s"); done
      echo "clock-validation: $m, $n ranks, $rate" >&2
      mkdir -p "$dir"
      scripts/netem-cluster.sh --rate "$rate" --counters "$dir/counters.json" -- \
        mpiexec -n "$n" "$bin" --config "configs/repro-v3/$model-model.json" --output-dir "$dir" \
        --overwrite --no-progress --set cluster.backend=mpi --set cluster.nodes="$n" \
        --set train.max_steps="$steps" --set train.log_every=1 --set train.checkpoint_every=0 \
        --set valid.every=0 --set valid.final_every=0 --set valid.test_at_end=false \
        --set valid.max_sentences=20 --set distributed.drop_warmup_steps=0 \
        --set "distributed.network={\"bandwidth_gbps\": $bw, \"latency_us\": 0}" "${sets[@]}" \
        >"$dir/stdout.txt" 2>&1 || { echo "clock-validation: $dir failed:" >&2; tail -5 "$dir/stdout.txt" >&2; exit 1; }
      rm -rf "$dir/checkpoints" "$dir/best-model.ckpt"
    done
  done
done
echo "clock-validation: runs in $out; next: python3 scripts/analyze.py clock-validation $(dirname "$out") --profile configs/hardware/<this CPU, scripts/measure-profile.sh --copies 2>.json" >&2
