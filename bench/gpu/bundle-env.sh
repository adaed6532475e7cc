# Sourced, never run: `. gpu-bundle/env.sh` (scripts/make-gpu-bundle.sh copies this file
# there). Readies a bundle made by scripts/make-gpu-bundle.sh on the machine it is on:
#   SL_BUNDLE        the bundle's folder
#   PATH             the bundle's bin/ first (its mpiexec and hydra_pmi_proxy)
#   UCX_MODULE_DIR   the bundle's lib/ucx: MPICH's UCX loads its transports from there only,
#                    never from a UCX the machine may have (different version)
#   SL_CUDA_LIB_DIR  where this machine's cuBLAS was found; lib/ gets symbolic links to it
#   SL_BUNDLE_CXXRT  "system" when this machine's libstdc++ and libgcc_s define every version
#                    the bundle uses (MANIFEST cxxrt_needs), else "bundled": lib/ gets links to
#                    lib/cxxrt/ (Debian 12's, which need glibc 2.36). Set it to "bundled"
#                    beforehand to force the bundle's.
# Returns 1 with a message on stderr when the bundle needs cuBLAS and none is found.
#
# Why cuBLAS is not in the bundle: libcublasLt.so.13 alone is 540 MB and the device machine
# takes 64 MiB. Its image has CUDA 13 (nvcc 13.0) and PyTorch 2.11+cu130, whose nvidia-cublas
# wheel carries libcublas.so.13 / libcublasLt.so.13; any cuBLAS 13.x serves a binary built
# against 13.0 (same soname, CUDA's minor-version compatibility). Searched in this order:
# $SL_CUDA_LIB_DIR, the loader cache (ldconfig -p), /usr/local/cuda*/{lib64,lib,targets/
# x86_64-linux/lib}, then nvidia/*/lib under every sys.path entry of python3 (PyTorch's wheels).

sl_find_cuda_libs() {  # NAME... -> prints the first folder holding all of them
  local cands=() d n ok py
  [[ -n ${SL_CUDA_LIB_DIR:-} ]] && cands+=("$SL_CUDA_LIB_DIR")
  if command -v ldconfig >/dev/null 2>&1; then
    while read -r d; do cands+=("$(dirname "$d")"); done < <(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF}')
  fi
  for d in /usr/local/cuda /usr/local/cuda-*; do
    cands+=("$d/lib64" "$d/lib" "$d/targets/x86_64-linux/lib")
  done
  for py in python3 /usr/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    while read -r d; do
      [[ -d $d/nvidia ]] && cands+=("$d"/nvidia/*/lib)
    done < <("$py" -c 'import sys; print("\n".join(p for p in sys.path if p))' 2>/dev/null)
  done
  for d in "${cands[@]}"; do
    ok=1
    for n in "$@"; do [[ -e $d/$n ]] || { ok=0; break; }; done
    ((ok)) && { (cd "$d" && pwd -P); return 0; }
  done
  return 1
}

sl_cxxrt_choice() {  # BUNDLE -> "system" or "bundled"
  local needs lib path tag
  [[ ${SL_BUNDLE_CXXRT:-} == bundled ]] && { echo bundled; return; }
  needs=$(sed -n 's/^cxxrt_needs=//p' "$1/MANIFEST")
  for lib in libstdc++.so.6 libgcc_s.so.1; do
    path=$(ldconfig -p 2>/dev/null | awk -v n="$lib" '$1 == n && /x86-64/ && !seen++ {print $NF}')
    [[ -n $path && -r $path ]] || { echo bundled; return; }
    for tag in $needs; do
      case $lib:$tag in libstdc++*:GCC_* | libgcc_s*:GLIBCXX_* | libgcc_s*:CXXABI_*) continue ;; esac
      grep -qaw "$tag" "$path" || { echo bundled; return; }
    done
  done
  echo system
}

sl_bundle_env() {
  local here need dir n
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  export SL_BUNDLE=$here
  export PATH=$here/bin:$PATH
  export UCX_MODULE_DIR=$here/lib/ucx
  SL_BUNDLE_CXXRT=$(sl_cxxrt_choice "$here")
  export SL_BUNDLE_CXXRT
  for n in libstdc++.so.6 libgcc_s.so.1; do
    if [[ $SL_BUNDLE_CXXRT == bundled ]]; then ln -sfn "cxxrt/$n" "$here/lib/$n"; else rm -f "$here/lib/$n"; fi
  done
  need=$(sed -n 's/^cuda_image_libs=//p' "$here/MANIFEST")
  [[ -z $need ]] && return 0
  # shellcheck disable=SC2086
  if ! dir=$(sl_find_cuda_libs $need); then
    echo "gpu bundle: no folder on this machine holds $need (searched \$SL_CUDA_LIB_DIR," \
      "ldconfig -p, /usr/local/cuda*/{lib64,lib,targets/x86_64-linux/lib}, python3's nvidia/*/lib);" \
      "set SL_CUDA_LIB_DIR" >&2
    return 1
  fi
  for n in $need; do ln -sfn "$dir/$n" "$here/lib/$n"; done
  export SL_CUDA_LIB_DIR=$dir
}

sl_bundle_env
