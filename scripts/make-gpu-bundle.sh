#!/usr/bin/env bash
# Builds sparselocal for the lent GPU machine and packs everything bench/gpu/run-on-gpu.sh runs
# there into one self-contained folder (issue 32). That machine's image has CUDA, PyTorch,
# CMake and Python but none of the project's libraries, and nothing can be fetched there; so
# the build happens here, and the binaries travel with every shared library they load that is
# not the C library, the NVIDIA driver or cuBLAS (taken from the image's CUDA: see
# bench/gpu/bundle-env.sh for the evidence and the search).
#
#   scripts/make-gpu-bundle.sh                 # build build-gpu-bundle/ (sm_90, x86-64-v3), make
#                                              # gpu-bundle/ and gpu-bundle.tar.xz, check them
#   scripts/make-gpu-bundle.sh --from-build build --out DIR --pairs 2000 --vocab 500 --no-archive
#                                              # assemble from an existing CUDA build (the ctest)
# Options:
#   --build-dir DIR   where to build (default build-gpu-bundle/; CUDA on, archs 90, SL_ARCH
#                     x86-64-v3 so the CPU kernels run on any AVX2 host, Release)
#   --from-build DIR  skip configure/build; take the binaries from DIR (a build with CUDA)
#   --out DIR         the bundle folder (default gpu-bundle/ at the repository root)
#   --pairs N         synthetic training pairs for the paper-config smoke run (default 30000)
#   --vocab V         its SentencePiece vocabulary (default 32000, the paper config's)
#   --no-archive      no DIR.tar.xz
#   --no-check        skip scripts/check-gpu-bundle.sh
# The bundle:
#   bin/    run-experiment bench_gpu_step cuda_tests cuda_host_tests, MPICH's mpiexec and
#           hydra_pmi_proxy (RUNPATH $ORIGIN/../lib)
#   lib/    every library those load (ldd) plus the ones loaded at run time by name: OpenBLAS
#           (libopenblas.so.0, with libgfortran/libquadmath) and UCX's shared-memory module
#           (lib/ucx); RUNPATH $ORIGIN
#   lib/cxxrt/  libstdc++ and libgcc_s, used only where the machine's lack a version the
#           bundle needs (env.sh decides): ours need glibc 2.36, where the rest needs 2.34, so
#           on an image with an older glibc but a recent enough libstdc++ (Ubuntu 22.04) the
#           machine's must be used, and on one with an older libstdc++ ours
#   data/   the synthetic WMT16-layout corpus (plain text) and the SentencePiece models of the
#           paper smoke run and of configs/tiny, made here so the lease spends no time on them
#   env.sh  (bench/gpu/bundle-env.sh) MANIFEST  SHA256SUMS
# What travels to the device machine is the checkout's tracked and untracked-not-ignored files
# plus the carried archive, 64 MiB in all: the last lines print that total and fail above it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build-gpu-bundle from_build="" out=$repo/gpu-bundle pairs=30000 vocab=32000
archive=1 check=1
while (($#)); do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --from-build) from_build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --vocab) vocab=$2; shift 2 ;;
    --no-archive) archive=0; shift ;;
    --no-check) check=0; shift ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-gpu-bundle: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "make-gpu-bundle: $*" >&2; exit 1; }
for tool in patchelf ldd strip sha256sum python3; do
  command -v $tool >/dev/null || die "$tool not found (patchelf: apt-get install patchelf; scripts/install-deps.sh installs it)"
done

# ---- 1. build ------------------------------------------------------------------------------
if [[ -n $from_build ]]; then
  build=$(cd "$from_build" && pwd)
else
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  nice -n 19 cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSL_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_ARCH=x86-64-v3 "${launcher[@]}" >/dev/null
  nice -n 19 cmake --build "$build" -j"${SL_JOBS:-2}" --target run-experiment bench_gpu_step \
    cuda_tests cuda_host_tests
fi
bins=(apps/run-experiment/run-experiment bench/gpu/bench_gpu_step tests/cuda/cuda_tests
      tests/cuda/cuda_host_tests)
for b in "${bins[@]}"; do [[ -x $build/$b ]] || die "$build/$b missing (a build with the CUDA backend is needed)"; done

# ---- 2. binaries ---------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"/{bin,lib/ucx,lib/cxxrt,data}
out=$(cd "$out" && pwd)
for b in "${bins[@]}"; do cp "$build/$b" "$out/bin/"; done
mpx=$(readlink -f "$(command -v mpiexec)") || die "mpiexec not found (apt-get install mpich)"
[[ -x $(dirname "$mpx")/hydra_pmi_proxy ]] || die "$mpx is not MPICH's hydra (no hydra_pmi_proxy beside it)"
cp "$mpx" "$out/bin/mpiexec"
cp "$(dirname "$mpx")/hydra_pmi_proxy" "$out/bin/"

# ---- 3. libraries --------------------------------------------------------------------------
# Not carried: the C library (glibc: every image has one; the MANIFEST records the newest
# symbol version needed), the driver (libcuda, libnvidia-*), and cuBLAS (the image's).
keep_out='^(linux-vdso\.so|ld-linux.*|libc\.so|libm\.so|libmvec\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libutil\.so|libanl\.so|libnss_.*|libcuda\.so|libnvidia-.*|libcublas\.so|libcublasLt\.so)'
declare -A where=()
add_deps() {  # FILE: record name -> path of everything ldd resolves for it
  local name arrow path rest
  while read -r name arrow path rest; do
    [[ $arrow == "=>" ]] || continue
    [[ $name =~ $keep_out ]] && continue
    [[ $path == "not" ]] && die "$1 needs $name, which this machine lacks"
    where[$name]=$path
  done < <(ldd "$1")
}
for f in "$out"/bin/*; do add_deps "$f"; done
# Loaded at run time by name (dlopen), so ldd of the binaries need not list them.
openblas=$(ldconfig -p | awk '$1 == "libopenblas.so.0" && /x86-64/ && !seen++ {print $NF}')
[[ -n $openblas ]] || die "libopenblas.so.0 not in the loader cache (apt-get install libopenblas0)"
where[libopenblas.so.0]=$openblas
add_deps "$openblas"
place() {  # NAME: where a library goes in the bundle
  case $1 in libstdc++.so.* | libgcc_s.so.*) echo "$out/lib/cxxrt/$1" ;; *) echo "$out/lib/$1" ;; esac
}
for name in "${!where[@]}"; do cp -L "${where[$name]}" "$(place "$name")"; done
# UCX (MPICH's transport) loads its transports from <libucs's folder>/ucx; one host needs only
# cma (shared memory), the rest (InfiniBand, RDMA CM) would drag in libibverbs and its drivers.
if [[ -n ${where[libucs.so.0]:-} ]]; then
  cma=$(dirname "$(readlink -f "${where[libucs.so.0]}")")/ucx/libuct_cma.so.0
  [[ -e $cma ]] || die "UCX's cma module not found at $cma"
  cp -L "$cma" "$out/lib/ucx/"
  add_deps "$cma"
  for name in "${!where[@]}"; do [[ -e $(place "$name") ]] || cp -L "${where[$name]}" "$(place "$name")"; done
fi
chmod -R u+w "$out"
for f in "$out"/bin/*; do strip --strip-unneeded "$f"; patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$out"/lib/*.so* "$out"/lib/cxxrt/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$out"/lib/ucx/*.so*; do patchelf --set-rpath '$ORIGIN/..' "$f"; done
cp "$repo/bench/gpu/bundle-env.sh" "$out/env.sh"

# ---- 4. MANIFEST -----------------------------------------------------------------------------
cuda_libs=$(for f in "$out"/bin/*; do objdump -p "$f" | awk '$1 == "NEEDED" {print $2}'; done |
            grep -E '^libcublas(Lt)?\.so' | sort -u | tr '\n' ' ')
# libcublas needs libcublasLt of its own version: name it even if no binary does directly.
for n in $cuda_libs; do [[ $n == libcublas.so.* ]] && cuda_libs="$cuda_libs libcublasLt.so.${n#libcublas.so.}"; done
cuda_libs=$(tr ' ' '\n' <<<"$cuda_libs" | sed '/^$/d' | sort -u | tr '\n' ' ')
newest() {  # PREFIX FILE...: the newest PREFIX_x.y version the files reference
  local prefix=$1
  shift
  for f in "$@"; do objdump -T "$f"; done | grep -o "${prefix}_[0-9][0-9.]*" | sed "s/${prefix}_//" |
    sort -uV | tail -1
}
rest=("$out"/bin/* "$out"/lib/*.so* "$out"/lib/ucx/*.so*)
glibc=$(newest GLIBC "${rest[@]}")
glibc_cxxrt=$(newest GLIBC "${rest[@]}" "$out"/lib/cxxrt/*.so*)
# The C++ runtime versions the rest of the bundle uses (env.sh checks the machine's for them).
cxxrt_needs=$(for f in "${rest[@]}"; do objdump -T "$f"; done |
              grep -oE '\b(GLIBCXX|CXXABI|GCC)_[0-9][0-9.]*\b' | sort -uV | tr '\n' ' ')
cxx_flags=$(sed -n 's/^SL_ARCH:STRING=//p' "$build/CMakeCache.txt")
archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=no
[[ -n $(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null) ]] && dirty=yes
{
  echo "made=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$commit"
  echo "dirty=$dirty"
  echo "build=$build"
  echo "cuda_archs=$archs"
  echo "sl_arch=$cxx_flags"
  echo "nvcc=$(/usr/local/cuda/bin/nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo "glibc_needed=$glibc"
  echo "glibc_needed_with_cxxrt=$glibc_cxxrt"
  echo "cxxrt_needs=${cxxrt_needs% }"
  echo "cuda_image_libs=${cuda_libs% }"
  echo "cpu_flags_needed=$([[ $cxx_flags == x86-64-v3 ]] && echo 'avx2 fma bmi2' || echo '')"
} >"$out/MANIFEST"

# ---- 5. data: corpus and SentencePiece models (CPU work, done before the lease) ---------------
python3 "$repo/bench/gpu/make_synthetic_corpus.py" "$out/data/synthetic-roen" --train "$pairs" >/dev/null
# Plain text (the corpus reader takes either): xz packs it into 2.3 MB, gzip's files stay 3.0.
gunzip "$out"/data/synthetic-roen/*.gz
(
  # shellcheck disable=SC1091
  . "$out/env.sh"
  toy=(--set device=cpu --set cluster.backend=sim --set cluster.nodes=1 --set train.max_steps=1
       --set valid.every=0 --set valid.test_at_end=false --set valid.max_sentences=1
       --set model.d_model=16 --set model.heads=2 --set model.ff=16 --set model.encoder_layers=1
       --set model.decoder_layers=1 --no-progress --overwrite)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cd "$repo"
  "$out/bin/run-experiment" --config "$repo/configs/paper/transformer-base.json" "${toy[@]}" \
    --set data.corpus="$out/data/synthetic-roen" --set data.vocab_size="$vocab" \
    --set data.spm_dir="$out/data/spm-paper" --output-dir "$tmp/paper" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; exit 1; }
  "$out/bin/run-experiment" --config "$repo/configs/tiny/sparse-partial.json" "${toy[@]}" \
    --set data.spm_dir="$out/data/spm-tiny" --output-dir "$tmp/tiny" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; exit 1; }
) || die "preparing the SentencePiece models with the bundle's run-experiment failed"
echo "paper_pairs=$pairs" >>"$out/MANIFEST"
echo "paper_vocab=$vocab" >>"$out/MANIFEST"
rm -f "$out"/lib/libcublas*.so.* "$out"/lib/libstdc++.so.6 "$out"/lib/libgcc_s.so.1  # env.sh's links
(cd "$out" && find . -type f ! -name SHA256SUMS -print0 | sort -z | xargs -0 sha256sum >SHA256SUMS)

# ---- 6. archive, check, sizes ----------------------------------------------------------------
bytes=$(du -sb "$out" | cut -f1)
echo "bundle: $out, $((bytes / 1048576)) MiB unpacked ($(find "$out" -type f | wc -l) files)"
if ((archive)); then
  tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | nice -n 19 xz -9 -T2 >"$out.tar.xz.tmp"
  mv "$out.tar.xz.tmp" "$out.tar.xz"
  echo "archive: $out.tar.xz, $(($(stat -c %s "$out.tar.xz") / 1024)) KiB"
fi
if ((check)); then
  bash "$repo/scripts/check-gpu-bundle.sh" "$out" --repo "$repo" || exit $?
fi
if ((archive)) && git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  # What the device tool sends: tracked + untracked-not-ignored files, plus the carried archive.
  tree=$(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
         xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
  arch=$(stat -c %s "$out.tar.xz")
  total=$((tree + arch))
  awk -v t="$tree" -v a="$arch" 'BEGIN {printf "travels: checkout %.1f MiB + archive %.1f MiB = %.1f MiB of 64 MiB\n", t / 1048576, a / 1048576, (t + a) / 1048576}'
  ((total <= 64 * 1048576)) ||
    die "over the device tool's 64 MiB: shrink the checkout, or the corpus (--pairs; 30000 pairs are 2.3 MB of the archive)"
fi
