#!/usr/bin/env bash
# The one script to run when a GPU is lent (issues 16, 32). Runs the binaries of a bundle made
# here by scripts/make-gpu-bundle.sh (the GPU machine's image has none of the project's
# libraries and nothing can be fetched there, so nothing is built on it) and writes one table:
#   env    the bundle is intact (SHA256SUMS), this machine's glibc and CPU can run it, its
#          cuBLAS was found; the GPU (name, driver, compute capability 9.0)
#   tests  cuda_tests with SL_REQUIRE_CUDA=1 (zero skips) and cuda_host_tests
#   bench  a Transformer-base training step (6+6, d 512, ff 2048, vocab 32k, 8192 target tokens)
#          timed with CUDA events, fp32 and TF32, against PyTorch eager on the same shapes, and
#          the CUDA allocator after one step (bytes in use / cached, its cap, cudaMalloc calls)
#   mpi    configs/tiny (sparse+partial) on 4 MPI ranks sharing the GPU against the same on the
#          CPU (train-loss curves within 2%)
#   smoke  configs/paper/transformer-base.json for up to 200 steps on the bundle's synthetic
#          corpus and SentencePiece model (made before the lease), then its dev validation
#
# Usage: bench/gpu/run-on-gpu.sh [--dry-run] [--strict] [--bundle DIR] [--out DIR]
#                                [--export DIR] [--steps env,tests,bench,mpi,smoke] [--budget S]
#   --dry-run  no GPU needed: the same steps on the CPU at toy sizes, with the same bundle
#              (ctest bench_gpu_dry_run). A SKIP (PyTorch or mpiexec missing) is allowed there.
#   --strict   a SKIP or an empty value is a FAIL: always so in the real run; with --dry-run it
#              tests that rule here
#   --bundle   default gpu-bundle/ at the repository root; when only DIR.tar.xz is there it is
#              unpacked first
#   --out      run folder (default results/gpu/<date>); the table is rewritten after every row
#   --export   also copy gpu-table.md, run.log and cuda_tests.txt there after every row (the
#              device tool's $OUT), so a run cut short still returns its rows
#   --budget   seconds for all steps (default 480): each step's commands get what is left
#              (coreutils timeout); a step the budget cannot start is a FAIL
#   SL_TORCH_PYTHON  Python with torch (default: the first of python3, /usr/bin/python3 with it)
#   SL_MPIEXEC       the MPI launcher (default the bundle's mpiexec)
# Exit status: 0 when every row passed, 1 otherwise (the table says which).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"  # configs name data/... relative to the repository root
dry=0 strict=0 bundle=$repo/gpu-bundle out="" export_dir="" steps=env,tests,bench,mpi,smoke budget=480
while (($#)); do
  case $1 in
    --dry-run) dry=1; shift ;;
    --strict) strict=1; shift ;;
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --export) export_dir=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-on-gpu: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
((dry)) || strict=1
t_start=$(date +%s)
out=${out:-$repo/results/gpu/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ -n $export_dir ]] && mkdir -p "$export_dir"
log=$out/run.log
: >"$log"
table=$out/gpu-table.md
rows=()
failed=0
header="(header written once the environment is known)"

write_table() {  # after every row, atomically, so a run cut short keeps its rows
  {
    echo "# bench/gpu/run-on-gpu.sh$( ((dry)) && echo ' --dry-run')$( ((dry && strict)) && echo ' --strict')"
    echo
    echo "$header"
    echo
    echo "| check | result | details |"
    echo "|---|---|---|"
    ((${#rows[@]})) && printf '%s\n' "${rows[@]}"
  } >"$table.tmp" && mv "$table.tmp" "$table"
  if [[ -n $export_dir ]]; then
    cp "$table" "$log" "$export_dir/" 2>/dev/null
    [[ -f $out/cuda_tests.txt ]] && cp "$out/cuda_tests.txt" "$export_dir/"
  fi
}
row() {  # check, PASS|FAIL|SKIP, details
  local result=$2 details=$3
  if [[ $result == SKIP ]] && ((strict)); then result=FAIL; details="$details (a skip is a failure here)"; fi
  [[ $result == FAIL ]] && failed=1
  rows+=("| $1 | $result | $details |")
  echo "[$result] $1: $details" | tee -a "$log" >&2
  write_table
}
run() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }
left() { echo $((t_start + budget - $(date +%s))); }
# tmo CAP cmd...: cmd under coreutils timeout, at most CAP seconds and what the budget has left
tmo() {
  local cap=$1 t
  shift
  t=$(left)
  ((t < cap)) && cap=$t
  ((cap < 5)) && { echo "+ not started (budget spent): $*" >>"$log"; return 124; }
  timeout -k 5 "$cap" "$@"
}
on() { [[ ,$steps, == *,$1,* ]]; }
# fields NAME JSON KEY...: NAME_KEY=value for each key; returns 1 (and names them) when the
# line is not JSON or a key is missing or empty -- an empty value is never a pass
fields() {
  local name=$1 json=$2
  shift 2
  local got
  got=$(python3 - "$json" "$@" <<'PY'
import json, sys
try:
    d = json.loads(sys.argv[1])
except Exception:
    print("BAD")
    sys.exit(0)
for k in sys.argv[2:]:
    v = d.get(k)
    print(f"{k}\t{'' if v is None else v}")
PY
)
  if [[ $got == BAD ]]; then missing="not JSON"; return 1; fi
  missing=""
  local k v
  while IFS=$'\t' read -r k v; do
    [[ -z $v ]] && missing="$missing $k"
    printf -v "${name}_$k" '%s' "$v"
  done <<<"$got"
  [[ -z $missing ]]
}

# ---- the bundle ----------------------------------------------------------------------------
if [[ ! -d $bundle && -f $bundle.tar.xz ]]; then
  t0=$(date +%s)
  if command -v xz >/dev/null; then tar -C "$(dirname "$bundle")" -xJf "$bundle.tar.xz"
  else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$bundle.tar.xz" "$(dirname "$bundle")"; fi
  echo "unpacked $bundle.tar.xz in $(($(date +%s) - t0)) s" >>"$log"
fi
if [[ ! -f $bundle/MANIFEST ]]; then
  row "bundle" FAIL "no bundle at $bundle (make it with scripts/make-gpu-bundle.sh)"
  exit 1
fi
bundle=$(cd "$bundle" && pwd)
manifest() { sed -n "s/^$1=//p" "$bundle/MANIFEST"; }
B=$bundle/bin
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2}
gpu_name=none
if ((!dry)); then
  gpu_name=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  gpu_name=${gpu_name:-none}
fi
header="$(date -u '+%Y-%m-%d %H:%M UTC'); GPU: $gpu_name; bundle commit $(manifest commit | cut -c1-10) (uncommitted changes: $(manifest dirty)), made $(manifest made); checkout $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'without .git')"

# ---- env: bundle, glibc, CPU, cuBLAS, GPU ----------------------------------------------------
env_ok=1
if on env; then
  problems=() facts=()
  if (cd "$bundle" && sha256sum --quiet -c SHA256SUMS >>"$log" 2>&1); then facts+=("bundle intact ($(wc -l <"$bundle/SHA256SUMS") files)")
  else problems+=("bundle files differ from SHA256SUMS (see run.log)"); fi
  # shellcheck disable=SC1091
  if . "$bundle/env.sh" 2>>"$log"; then facts+=("cuBLAS from ${SL_CUDA_LIB_DIR:-nowhere}")
  else problems+=("no cuBLAS ($(manifest cuda_image_libs)) on this machine; set SL_CUDA_LIB_DIR"); fi
  facts+=("C++ runtime: the ${SL_BUNDLE_CXXRT:-?} one")
  need=$(manifest glibc_needed)
  [[ ${SL_BUNDLE_CXXRT:-} == bundled ]] && need=$(manifest glibc_needed_with_cxxrt)
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [[ -n $have && $(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1) == "$need" ]]; then facts+=("glibc $have >= $need")
  else problems+=("glibc ${have:-unknown} < $need needed by the bundle"); fi
  for flag in $(manifest cpu_flags_needed); do
    grep -qw "$flag" /proc/cpuinfo || problems+=("CPU lacks $flag (bundle built for $(manifest sl_arch))")
  done
  facts+=("CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)")
  if ((!dry)); then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
    if [[ $gpu_name == none ]]; then problems+=("nvidia-smi sees no GPU")
    elif [[ ,$(manifest cuda_archs | tr ';' ','), != *,${cc/./},* && ,$(manifest cuda_archs | tr ';' ','), != *,${cc/./}-real,* ]]; then
      problems+=("GPU compute capability ${cc:-unknown}, bundle built for $(manifest cuda_archs)")
    else facts+=("GPU $gpu_name, compute capability $cc"); fi
  fi
  join() { local IFS=$'\x1f'; local s="$*"; echo "${s//$'\x1f'/; }"; }
  if ((${#problems[@]})); then env_ok=0; row "environment" FAIL "$(join "${problems[@]}")"
  else row "environment" PASS "$(join "${facts[@]}")"; fi
else
  # shellcheck disable=SC1091
  . "$bundle/env.sh" 2>>"$log" || env_ok=0
fi
mpiexec=${SL_MPIEXEC:-$B/mpiexec}

# ---- tests -----------------------------------------------------------------------------------
if on tests; then
  if [[ ! -x $B/cuda_tests ]]; then
    row "CUDA tests" SKIP "the bundle has no cuda_tests"
  elif ((dry)); then
    # No GPU: the host parts pass, and SL_REQUIRE_CUDA=1 must turn the no-GPU skip into a failure.
    if run tmo 120 "$B/cuda_host_tests" && run tmo 60 "$B/cuda_tests" --gtest_filter='KernelMathOnHost.*:CudaAvailability.*' &&
       ! SL_REQUIRE_CUDA=1 tmo 60 "$B/cuda_tests" --gtest_filter='CudaAvailability.*' >>"$log" 2>&1; then
      row "CUDA tests" PASS "dry run: host parts pass; SL_REQUIRE_CUDA=1 fails without a GPU, as it must"
    else row "CUDA tests" FAIL "dry run: see run.log"; fi
  else
    t=$out/cuda_tests.txt
    t0=$(date +%s)
    SL_REQUIRE_CUDA=1 tmo 200 "$B/cuda_tests" >"$t" 2>&1; rc=$?
    run tmo 60 "$B/cuda_host_tests"; rc2=$?
    skipped=$(grep -c '^\[  SKIPPED \]' "$t")
    passed=$(grep -o '\[  PASSED  \] [0-9]* test' "$t" | grep -o '[0-9]*')
    if ((rc == 0 && rc2 == 0 && skipped == 0)) && [[ -n $passed ]]; then
      row "CUDA tests (SL_REQUIRE_CUDA=1)" PASS "$passed passed, 0 skipped, cuda_host_tests passed ($(($(date +%s) - t0)) s)"
    else
      row "CUDA tests (SL_REQUIRE_CUDA=1)" FAIL "exit $rc/$rc2$( ((rc == 124)) && echo ' (timed out)'), ${skipped:-?} skipped; failures: $(grep '^\[  FAILED  \]' "$t" | head -5 | tr '\n' ' ')"
    fi
  fi
fi

# ---- bench: Transformer-base step vs PyTorch; the allocator after one step --------------------
torch_py=${SL_TORCH_PYTHON:-}
if [[ -z ${SL_TORCH_PYTHON+set} ]]; then
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import torch' 2>/dev/null; then torch_py=$p; break; fi
  done
fi
if on bench; then
  if ((dry)); then dev=cpu; sz=(--tiny --steps 2 --warmup 1); else dev=cuda; sz=(--steps 10 --warmup 3); fi
  for tf in "" --tf32; do
    label="Transformer-base step, ${dev}${tf:+ TF32}"
    if ! ours=$(tmo 120 "$B/bench_gpu_step" --device "$dev" "${sz[@]}" $tf 2>>"$log"); then
      row "$label" FAIL "bench_gpu_step failed, see run.log"; continue
    fi
    echo "$ours" >>"$log"
    keys=(event_median_s clock last_loss tgt_tok_per_s)
    [[ $dev == cuda && -z $tf ]] && keys+=(alloc_in_use_bytes alloc_cached_bytes alloc_cap_bytes raw_allocs_timed raw_frees_timed)
    if ! fields o "$ours" "${keys[@]}"; then row "$label" FAIL "bench_gpu_step output lacks:$missing"; continue; fi
    if [[ $dev == cuda && -z $tf ]]; then
      mem=$(python3 -c "import sys; g=lambda b: f'{int(b)/2**30:.2f} GiB'; print(f'allocator after step 1: {g(sys.argv[1])} in use, {g(sys.argv[2])} cached, cap {g(sys.argv[3])}; cudaMalloc/cudaFree in the timed steps: {sys.argv[4]}/{sys.argv[5]}')" \
            "$o_alloc_in_use_bytes" "$o_alloc_cached_bytes" "$o_alloc_cap_bytes" "$o_raw_allocs_timed" "$o_raw_frees_timed")
      if ((o_raw_allocs_timed + o_raw_frees_timed > 0)); then row "CUDA allocator (Transformer-base step)" FAIL "$mem (the cache should serve every timed step)"
      else row "CUDA allocator (Transformer-base step)" PASS "$mem"; fi
    fi
    if [[ -z $torch_py ]]; then
      row "$label" SKIP "ours $o_event_median_s s/step ($o_clock); no Python with torch (set SL_TORCH_PYTHON)"
      ((dry)) && break || continue
    fi
    if ! theirs=$(tmo 150 "$torch_py" "$repo/bench/gpu/torch_step.py" --device "$dev" "${sz[@]}" $tf 2>>"$log"); then
      row "$label" FAIL "ours $o_event_median_s s/step; torch_step.py ($torch_py) failed, see run.log"
      ((dry)) && break || continue
    fi
    echo "$theirs" >>"$log"
    if ! fields p "$theirs" event_median_s torch last_loss; then row "$label" FAIL "torch_step.py output lacks:$missing"; continue; fi
    ratio=$(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$p_event_median_s" "$o_event_median_s")
    row "$label" PASS "ours $o_event_median_s s/step ($o_clock, $o_tgt_tok_per_s tgt tok/s), PyTorch $p_torch $p_event_median_s s/step: PyTorch/ours = $ratio; loss $o_last_loss vs $p_last_loss"
    ((dry)) && break  # TF32 means nothing on the CPU
  done
fi

# ---- mpi: configs/tiny, 4 MPI ranks, GPU vs CPU ------------------------------------------------
if on mpi; then
  tiny=(--config "$repo/configs/tiny/sparse-partial.json" --set cluster.backend=mpi --set cluster.nodes=4
        --set data.spm_dir="$bundle/data/spm-tiny" --no-progress --overwrite)
  ((dry)) && tiny+=(--set train.max_steps=6)
  other=cuda
  ((dry)) && other=cpu
  label="configs/tiny sparse+partial, 4 MPI ranks: $other vs cpu"
  if [[ ! -x $mpiexec ]] && ! command -v "$mpiexec" >/dev/null; then
    row "$label" SKIP "MPI launcher $mpiexec not found"
  elif run tmo 90 "$mpiexec" -n 4 "$B/run-experiment" "${tiny[@]}" --set device=cpu --output-dir "$out/tiny-cpu" &&
       run tmo 120 "$mpiexec" -n 4 "$B/run-experiment" "${tiny[@]}" --set device=$other --output-dir "$out/tiny-$other-b"; then
    # the 4 ranks share one GPU: rank 0's comparison of their GPUs (node_trainer) must be silent
    if grep -q 'compute on different GPUs' "$log"; then
      row "$label" FAIL "rank 0 warned that ranks on one GPU run different GPUs: $(grep -m1 'different GPUs' "$log")"
    elif cmp=$(python3 "$repo/bench/gpu/compare_logs.py" "$out/tiny-cpu" "$out/tiny-$other-b" --tol 0.02) && [[ -n $cmp ]]; then
      row "$label" PASS "$cmp"
    else row "$label" FAIL "${cmp:-compare_logs.py printed nothing}"; fi
  else row "$label" FAIL "a run failed or timed out, see run.log"; fi
fi

# ---- smoke: the paper config on the bundle's synthetic corpus ----------------------------------
if on smoke; then
  corpus=$bundle/data/synthetic-roen
  smoke=(--config "$repo/configs/paper/transformer-base.json" --set data.corpus="$corpus"
         --set data.spm_dir="$bundle/data/spm-paper" --set data.vocab_size="$(manifest paper_vocab)"
         --set cluster.backend=sim --set cluster.nodes=1 --set valid.every=0
         --set valid.test_at_end=false --set valid.max_sentences=50 --set train.log_every=20
         --set train.checkpoint_every=0 --no-progress --overwrite)
  if ((dry)); then
    smoke+=(--set device=cpu --set train.max_steps=2 --set data.batch_tokens=200 --set model.d_model=32
            --set model.heads=2 --set model.ff=64 --set model.encoder_layers=1 --set model.decoder_layers=1
            --set train.log_every=1 --set valid.max_sentences=5 --set valid.decode.beam_size=2)
  else
    # 200 steps, or fewer where the budget ends first (leaving ~60 s for validation and the end)
    limit=$(($(left) - 90))
    ((limit > 240)) && limit=240
    smoke+=(--set train.max_steps=200 --set train.time_limit_s=$((limit > 10 ? limit : 10)))
  fi
  label="configs/paper transformer-base smoke ($(manifest paper_pairs) synthetic pairs, vocab $(manifest paper_vocab))"
  t0=$(date +%s)
  if run tmo 400 "$B/run-experiment" "${smoke[@]}" --output-dir "$out/paper-smoke"; then
    s=$(python3 - "$out/paper-smoke" "$dry" <<'PY'
import json, math, os, sys
d, dry = sys.argv[1], sys.argv[2] == "1"
# summary.json "kernels": a CUDA run records its GPU and cuBLAS (what a resume compares)
try:
    seg = json.load(open(os.path.join(d, "summary.json"))).get("kernels", [{}])[-1]
except (OSError, ValueError, IndexError):
    seg = {}
L = [json.loads(l) for l in open(os.path.join(d, "log.jsonl")) if l.strip()]
L = [j for j in L if "train_loss" in j]
V = []
if os.path.exists(os.path.join(d, "valid.jsonl")):
    V = [json.loads(l) for l in open(os.path.join(d, "valid.jsonl")) if l.strip()]
if not L:
    print("bad: no train_loss in log.jsonl")
elif not all(math.isfinite(j["train_loss"]) for j in L):
    print("bad: non-finite train_loss")
elif not dry and "gpu" not in seg:
    print(f"bad: summary.json kernels lacks the GPU: {seg}")
else:
    v = V[-1] if V else {}
    print(f"ok steps {L[-1]['step']}, loss {L[0]['train_loss']:.3f} -> {L[-1]['train_loss']:.3f}, "
          f"compute {L[-1].get('compute_s', float('nan')):.3f} s/step; "
          f"dev ce {v.get('dev_ce', float('nan')):.3f}, BLEU {v.get('bleu', float('nan')):.2f}; "
          f"kernels: {seg.get('gpu') or seg.get('blas', '?')}")
PY
)
    if [[ $s == ok* ]]; then row "$label ($(($(date +%s) - t0)) s)" PASS "${s#ok }"
    else row "$label" FAIL "${s:-no summary}"; fi
  else
    row "$label" FAIL "run-experiment failed or timed out after $(($(date +%s) - t0)) s, see run.log"
  fi
fi

((env_ok)) || failed=1
echo "total $(($(date +%s) - t_start)) s" >>"$log"
write_table
cat "$table"
exit $failed
