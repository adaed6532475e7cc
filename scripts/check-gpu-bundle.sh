#!/usr/bin/env bash
# Proves a bundle of scripts/make-gpu-bundle.sh self-contained on this machine (issue 32):
#   1. ldd: every library each ELF file of the bundle needs resolves inside the bundle, or to
#      the C library, the NVIDIA driver, or the machine's cuBLAS that env.sh linked in;
#   2. run-time loads: the bundle's CPU paths (cuda_host_tests; cuda_tests' host parts and GPU
#      probe; bench_gpu_step --tiny on the CPU; configs/tiny on 2 MPI ranks through the
#      bundle's mpiexec) run with LD_DEBUG=libs, and every program and library any of their
#      processes loads -- those opened by name at run time too (OpenBLAS, UCX's modules) -- is
#      inside the bundle or one of the exceptions of 1;
#   3. hidden packages: the same runs in a mount namespace (unshare -m, needs root) where
#      /usr/lib/x86_64-linux-gnu -- every Debian library the project uses -- holds the C
#      library's files alone.
# Usage: scripts/check-gpu-bundle.sh BUNDLE [--repo DIR] [--work DIR] [--parts 1,2,3]
# Exit status: 0 all asked parts passed; 1 one failed; 77 parts 1-2 passed but 3 could not run
# here (the reason is printed), so the proof is incomplete.
set -uo pipefail

bundle="" repo=$(cd "$(dirname "$0")/.." && pwd) work="" parts=1,2,3
while (($#)); do
  case $1 in
    --repo) repo=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-gpu-bundle: unknown option $1" >&2; exit 2 ;;
    *) bundle=$1; shift ;;
  esac
done
[[ -n $bundle && -f $bundle/MANIFEST ]] || { echo "check-gpu-bundle: $bundle is not a bundle (no MANIFEST)" >&2; exit 2; }
B=$(cd "$bundle" && pwd)
if [[ -z $work ]]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work"
W=$(cd "$work" && pwd)
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# shellcheck disable=SC1091
. "$B/env.sh" || { echo "FAIL: env.sh could not ready the bundle"; exit 1; }
cuda_libs=" $(sed -n 's/^cuda_image_libs=//p' "$B/MANIFEST") "

# Whether a loaded file (resolved) may come from outside the bundle.
allowed() {
  local real=$1 base
  [[ $real == "$B"/* ]] && return 0
  base=$(basename "$real")
  case $base in
    ld-linux-x86-64.so.2 | libc.so.6 | libm.so.6 | libmvec.so.1 | libdl.so.2 | libpthread.so.0 | \
      librt.so.1 | libresolv.so.2 | libutil.so.1 | libanl.so.1 | libnss_*.so.2) return 0 ;;
    libcuda.so* | libnvidia-*.so*) return 0 ;;  # the driver
    libstdc++.so.6* | libgcc_s.so.1) [[ $SL_BUNDLE_CXXRT == system ]] && return 0 ;;  # env.sh chose them
  esac
  [[ -n ${SL_CUDA_LIB_DIR:-} && $(dirname "$real") == "$SL_CUDA_LIB_DIR" && $cuda_libs == *" $base "* ]]
}
on() { [[ ,$parts, == *,$1,* ]]; }

# ---- 1. ldd -------------------------------------------------------------------------------
if on 1; then
  n=0
  while IFS= read -r -d '' f; do
    [[ $(head -c 4 "$f" | tr -d '\0') == $'\x7f'ELF ]] || continue
    n=$((n + 1))
    while read -r name arrow path rest; do
      [[ $arrow == "=>" ]] || continue
      if [[ $path == not ]]; then fail "ldd ${f#"$B"/}: $name not found"; continue; fi
      real=$(readlink -f "$path")
      allowed "$real" || fail "ldd ${f#"$B"/}: $name => $real (outside the bundle)"
    done < <(ldd "$f" 2>&1)
  done < <(find "$B/bin" "$B/lib" -type f -print0)
  echo "part 1 (ldd of $n ELF files): $([[ $failed == 0 ]] && echo passed || echo FAILED)"
fi

# The CPU paths; run from the repository root (configs name data/... relative to it). Only
# shell built-ins and bundle programs, so it also runs where the system's libraries are hidden.
cat >"$W/cpu-paths.sh" <<'EOF'
cd "$REPO" || exit 1
rc=0
step() { local name=$1; shift; "$@" >"$LOGS/$name.log" 2>&1 || { echo "  $name failed (exit $?): $*"; rc=1; }; }
step cuda_host_tests "$B/bin/cuda_host_tests"
step cuda_tests_host "$B/bin/cuda_tests" --gtest_filter='KernelMathOnHost.*:CudaAvailability.*'
step bench_gpu_step "$B/bin/bench_gpu_step" --device cpu --tiny --steps 1 --warmup 0
step mpi_tiny "$B/bin/mpiexec" -n 2 "$B/bin/run-experiment" --config configs/tiny/sparse-partial.json \
  --set cluster.backend=mpi --set cluster.nodes=2 --set train.max_steps=2 --set device=cpu \
  --set data.spm_dir="$B/data/spm-tiny" --no-progress --overwrite --output-dir "$LOGS/tiny"
exit $rc
EOF
export B REPO=$repo OPENBLAS_NUM_THREADS=1

# ---- 2. what the processes load at run time -------------------------------------------------
if on 2; then
  before=$failed
  rm -rf "$W/ld" "$W/logs2"
  mkdir -p "$W/ld" "$W/logs2"
  LOGS=$W/logs2 LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/ld/ld bash "$W/cpu-paths.sh" || fail "a CPU path failed (logs in $W/logs2)"
  seen=0
  # One file per process (ld.PID); the shell that runs cpu-paths.sh is not the bundle's.
  while read -r what path; do
    seen=$((seen + 1))
    if [[ $what == program && $path != */* ]]; then path=$(command -v "$path"); fi
    real=$(readlink -f "$path")
    allowed "$real" || fail "run time: $what $real was loaded from outside the bundle"
  done < <(for f in "$W"/ld/ld.*; do
             grep -q 'initialize program: .*bash$' "$f" && continue
             # a library: "calling init: PATH", or the last "trying file=PATH" of a search
             # (the one that was found: libraries without an init function print no init line)
             awk '{ sub(/^ *[0-9]+:[ \t]*/, "") }
                  /^calling init: /       { print "library", substr($0, 15); next }
                  /^initialize program: / { print "program", substr($0, 21); next }
                  /^find library=/        { searching = 1; tried = ""; next }
                  searching && /^trying file=/ { tried = substr($0, 13); next }
                  searching && /^$/       { if (tried != "") print "library", tried; searching = 0 }' "$f"
           done | sort -u)
  ((seen > 0)) || fail "LD_DEBUG recorded nothing"
  echo "part 2 (run-time loads of $(ls "$W/ld" | wc -l) processes, $seen distinct objects): $([[ $failed == "$before" ]] && echo passed || echo FAILED)"
fi

# ---- 3. the same with the system's libraries hidden -------------------------------------------
skip3=""
if on 3; then
  libdir=/usr/lib/x86_64-linux-gnu
  if [[ $(id -u) != 0 ]]; then skip3="not root (unshare -m needs CAP_SYS_ADMIN)"
  elif ! unshare -m true 2>/dev/null; then skip3="unshare -m is not permitted here"
  elif [[ ! -d $libdir ]]; then skip3="no $libdir (not a Debian-style multiarch system)"
  else
    # The C library's files, as the libc6 package lists them (or the usual names).
    rm -rf "$W/libc-only" "$W/logs3"
    mkdir -p "$W/libc-only" "$W/logs3"
    names=$(dpkg -L libc6 2>/dev/null | grep -E '^(/usr)?/lib/x86_64-linux-gnu/[^/]+$' | xargs -r -n1 basename)
    [[ -n $names ]] || names="ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1 libanl.so.1 libnss_files.so.2 libnss_dns.so.2"
    for n in $names; do [[ -e $libdir/$n ]] && cp -a "$libdir/$n" "$W/libc-only/"; done
    targets=("$libdir")
    other=$(readlink -f /lib/x86_64-linux-gnu 2>/dev/null || true)
    [[ -n $other && $other != "$libdir" && -d $other ]] && targets+=("$other")
    # env.sh must run before the mount (it uses sed, python3, ...); the C++ runtime there is
    # the bundle's (the system's is hidden).
    cat >"$W/hidden.sh" <<EOF
SL_BUNDLE_CXXRT=bundled . "$B/env.sh" || exit 1
for t in ${targets[*]}; do mount --bind "$W/libc-only" "\$t" || exit 3; done
LOGS=$W/logs3 . "$W/cpu-paths.sh"
EOF
    before=$failed
    unshare -m bash "$W/hidden.sh"
    case $? in
      0) ;;
      3) skip3="mount --bind over $libdir failed" ;;
      *) fail "with $libdir holding only the C library, a CPU path failed (logs in $W/logs3)" ;;
    esac
    [[ -z $skip3 ]] && echo "part 3 (project packages hidden: $libdir = the C library's $(ls "$W/libc-only" | wc -l) files): $([[ $failed == "$before" ]] && echo passed || echo FAILED)"
  fi
fi

if ((failed)); then
  for f in "$W"/logs*/*.log; do [[ -s $f ]] && { echo "--- $f (last lines)"; tail -5 "$f"; }; done
  exit 1
fi
if [[ -n $skip3 ]]; then echo "part 3 skipped: $skip3"; exit 77; fi
echo "bundle $B: self-contained (parts $parts; C++ runtime in parts 1-2: $SL_BUNDLE_CXXRT's, in part 3: the bundle's)"
