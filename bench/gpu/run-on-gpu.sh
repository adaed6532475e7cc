#!/usr/bin/env bash
# The one script to run when a GPU is lent (issue 16). Builds with CUDA, then
#   1. CUDA tests with SL_REQUIRE_CUDA=1 (a missing/unusable GPU fails instead of skipping;
#      zero skips required), plus the CPU replay of the device exchange's index arithmetic;
#   2. a Transformer-base training step (6+6, d 512, 8 heads, ff 2048, vocab 32k, 8192 target
#      tokens) timed with CUDA events, fp32 and TF32, against PyTorch eager on the same shapes;
#   3. configs/tiny (sparse+partial) with 4 MPI ranks on the one GPU against the same run on
#      the CPU (train-loss curves; float32 kernels differ in order, so within a tolerance);
#   4. a 200-step smoke run of configs/paper/transformer-base.json on a synthetic corpus;
# and writes one table, OUT/gpu-table.md (with the date, the GPU and the commit).
#
# Usage: bench/gpu/run-on-gpu.sh [--dry-run] [--build-dir DIR] [--out DIR] [--no-build]
#   --dry-run   no GPU needed: every CPU part at toy sizes (the CPU side of each comparison
#               stands in for the GPU side), using an existing build (default build/); a
#               ctest (bench_gpu_dry_run). The real run builds build-gpu/ (CUDA on).
#   SL_TORCH_PYTHON  Python with torch (default: python3, else /usr/bin/python3).
# Exit status: 0 when every check passed, 1 otherwise (the table says which).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"  # configs name data/... relative to the repository root
dry=0 build="" out="" do_build=1
while (($#)); do
  case $1 in
    --dry-run) dry=1; shift ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-on-gpu: unknown argument $1" >&2; exit 2 ;;
  esac
done
if ((dry)); then build=${build:-$repo/build}; do_build=0; else build=${build:-$repo/build-gpu}; fi
out=${out:-$repo/results/gpu/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/run.log
: >"$log"
table=$out/gpu-table.md
rows=()
failed=0
row() {  # check, PASS|FAIL|SKIP, details
  rows+=("| $1 | $2 | $3 |")
  [[ $2 == FAIL ]] && failed=1
  echo "[$2] $1: $3" | tee -a "$log" >&2
}
run() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d.get(sys.argv[2], ""))' "$1" "$2"; }

torch_py=${SL_TORCH_PYTHON:-}
if [[ -z $torch_py ]]; then
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import torch' 2>/dev/null; then torch_py=$p; break; fi
  done
fi

# ---- 0. build --------------------------------------------------------------------------
gpu_name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
gpu_name=${gpu_name:-none}
if ((do_build)); then
  archs=()
  # CMake >= 3.24 knows "native" (the visible GPU only: faster to build here).
  if cmake --version | awk 'NR==1{split($3,v,"."); exit !(v[1]>3 || (v[1]==3 && v[2]>=24))}'; then
    archs=(-DCMAKE_CUDA_ARCHITECTURES=native)
  fi
  t0=$(date +%s)
  if run cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSL_CUDA=ON "${archs[@]}" &&
     run cmake --build "$build" -j"$(nproc)" --target cuda_tests cuda_host_tests distributed_tests \
       common_timer_tests bench_gpu_step run-experiment; then
    row "build (CUDA on)" PASS "$(( $(date +%s) - t0 )) s, ${archs[*]:-default archs}"
  else
    row "build (CUDA on)" FAIL "see $log"
    printf '%s\n' "${rows[@]}" >"$table"; exit 1
  fi
fi
bin=$build/apps/run-experiment/run-experiment
cuda_tests=$build/tests/cuda/cuda_tests

# ---- 1. tests --------------------------------------------------------------------------
if run "$build/tests/distributed/distributed_tests" --gtest_filter='DeviceExchangePlan.*'; then
  row "device exchange index arithmetic (CPU replay vs TopKCompressor)" PASS "bit-identical"
else row "device exchange index arithmetic (CPU replay vs TopKCompressor)" FAIL "see $log"; fi
if [[ -x $cuda_tests ]]; then
  if ((dry)); then
    # No GPU: plain run skips; SL_REQUIRE_CUDA=1 must turn the skip into a failure.
    if run "$build/tests/cuda/cuda_host_tests" && run "$cuda_tests" --gtest_filter='KernelMathOnHost.*:CudaAvailability.*' &&
       ! SL_REQUIRE_CUDA=1 "$cuda_tests" --gtest_filter='CudaAvailability.*' >>"$log" 2>&1; then
      row "CUDA tests" PASS "dry run: host parts pass; SL_REQUIRE_CUDA=1 fails without a GPU, as it must"
    else row "CUDA tests" FAIL "dry run: see $log"; fi
  else
    t=$out/cuda_tests.txt
    SL_REQUIRE_CUDA=1 "$cuda_tests" >"$t" 2>&1; rc=$?
    run "$build/tests/cuda/cuda_host_tests"; rc2=$?
    skipped=$(grep -c '^\[  SKIPPED \]' "$t" || true)
    passed=$(grep -o '\[  PASSED  \] [0-9]* test' "$t" | grep -o '[0-9]*' || echo 0)
    if ((rc == 0 && rc2 == 0 && skipped == 0)); then row "CUDA tests (SL_REQUIRE_CUDA=1)" PASS "$passed passed, 0 skipped"
    else row "CUDA tests (SL_REQUIRE_CUDA=1)" FAIL "exit $rc/$rc2, $skipped skipped; failures: $(grep '^\[  FAILED  \]' "$t" | head -5 | tr '\n' ' ')"; fi
  fi
else
  row "CUDA tests" SKIP "not built in $build (no CUDA backend)"
fi

# ---- 2. Transformer-base step vs PyTorch ------------------------------------------------
if ((dry)); then dev=cpu; sz=(--tiny --steps 2 --warmup 1); else dev=cuda; sz=(--steps 20 --warmup 3); fi
for tf in "" --tf32; do
  label="Transformer-base step, ${dev}${tf:+ TF32}"
  ours=$("$build/bench/gpu/bench_gpu_step" --device "$dev" "${sz[@]}" $tf 2>>"$log") || { row "$label" FAIL "bench_gpu_step failed, see $log"; continue; }
  echo "$ours" >>"$log"
  theirs=""
  if [[ -n $torch_py ]]; then theirs=$("$torch_py" "$repo/bench/gpu/torch_step.py" --device "$dev" "${sz[@]}" $tf 2>>"$log") || theirs=""; fi
  echo "${theirs:-no PyTorch}" >>"$log"
  o=$(jget "$ours" event_median_s)
  if [[ -n $theirs ]]; then
    p=$(jget "$theirs" event_median_s)
    ratio=$(python3 -c "print(f'{float($p)/float($o):.2f}')")
    row "$label" PASS "ours $o s/step ($(jget "$ours" clock)), PyTorch $(jget "$theirs" torch) $p s/step: PyTorch/ours = $ratio; loss $(jget "$ours" last_loss) vs $(jget "$theirs" last_loss)"
  else
    row "$label" PASS "ours $o s/step ($(jget "$ours" clock)); PyTorch not available (set SL_TORCH_PYTHON)"
  fi
  ((dry)) && break  # TF32 means nothing on the CPU
done

# ---- 3. configs/tiny, 4 MPI ranks, GPU vs CPU -------------------------------------------
tiny=(--config "$repo/configs/tiny/sparse-partial.json" --set cluster.backend=mpi --set cluster.nodes=4 --no-progress --overwrite)
((dry)) && tiny+=(--set train.max_steps=6)
mpiexec=${SL_MPIEXEC:-mpiexec}
if command -v "$mpiexec" >/dev/null; then
  other=cuda; ((dry)) && other=cpu
  if run "$mpiexec" -n 4 "$bin" "${tiny[@]}" --set device=cpu --output-dir "$out/tiny-cpu" &&
     run "$mpiexec" -n 4 "$bin" "${tiny[@]}" --set device=$other --output-dir "$out/tiny-$other-b"; then
    if cmp=$(python3 "$repo/bench/gpu/compare_logs.py" "$out/tiny-cpu" "$out/tiny-$other-b" --tol 0.02); then
      row "configs/tiny sparse+partial, 4 MPI ranks: $other vs cpu" PASS "$cmp"
    else row "configs/tiny sparse+partial, 4 MPI ranks: $other vs cpu" FAIL "$cmp"; fi
  else row "configs/tiny sparse+partial, 4 MPI ranks" FAIL "a run failed, see $log"; fi
else
  row "configs/tiny, 4 MPI ranks" SKIP "$mpiexec not found"
fi

# ---- 4. 200-step smoke run of a paper config on synthetic data -----------------------------
corpus=$out/synthetic-roen
smoke=(--config "$repo/configs/paper/transformer-base.json" --set data.corpus="$corpus"
       --set data.spm_dir="$out/spm" --set cluster.backend=sim --set cluster.nodes=1
       --set valid.every=0 --set valid.test_at_end=false --set train.log_every=20
       --set train.checkpoint_every=100 --no-progress --overwrite)
if ((dry)); then
  smoke+=(--set device=cpu --set train.max_steps=2 --set data.vocab_size=300 --set data.batch_tokens=200
          --set model.d_model=32 --set model.heads=2 --set model.ff=64 --set model.encoder_layers=1
          --set model.decoder_layers=1 --set train.log_every=1)
  ntrain=2000
else
  smoke+=(--set train.max_steps=200)
  ntrain=30000
fi
if run python3 "$repo/bench/gpu/make_synthetic_corpus.py" "$corpus" --train $ntrain &&
   t0=$(date +%s) && run "$bin" "${smoke[@]}" --output-dir "$out/paper-smoke"; then
  s=$(python3 - "$out/paper-smoke/log.jsonl" <<'PY'
import json, math, sys
L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
L = [j for j in L if "train_loss" in j]
ok = L and all(math.isfinite(j["train_loss"]) for j in L)
print(("ok" if ok else "bad") + f" steps {L[-1]['step'] if L else 0}, loss {L[0]['train_loss']:.3f} -> {L[-1]['train_loss']:.3f}, "
      f"compute {L[-1].get('compute_s', 0):.3f} s/step" if L else "bad no log")
PY
)
  if [[ $s == ok* ]]; then row "configs/paper transformer-base smoke ($(( $(date +%s) - t0 )) s)" PASS "${s#ok }"
  else row "configs/paper transformer-base smoke" FAIL "$s"; fi
else
  row "configs/paper transformer-base smoke" FAIL "see $log"
fi

# ---- table ---------------------------------------------------------------------------------
{
  echo "# bench/gpu/run-on-gpu.sh$([[ $dry == 1 ]] && echo ' --dry-run')"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); GPU: $gpu_name; commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'); build $build"
  echo
  echo "| check | result | details |"
  echo "|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$table"
cat "$table"
exit $failed
