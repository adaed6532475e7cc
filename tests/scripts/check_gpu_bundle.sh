#!/usr/bin/env bash
# ctest gpu_bundle_self_contained: scripts/check-gpu-bundle.sh passes on the bundle the
# fixture gpu_bundle_assemble made from this build, and fails on copies of it with a library
# taken out (so it can fail): libgfortran.so.5 (caught by ldd, part 1, and where the system's
# libraries are hidden, part 3) and libopenblas.so.0 (loaded by name at run time: part 2).
#   check_gpu_bundle.sh REPO BUNDLE WORK
# Exit 0 passed, 1 failed, 77 part 3 (unshare -m) cannot run here (reason printed).
set -u
repo=$1 bundle=$2 work=$3
check=$repo/scripts/check-gpu-bundle.sh
rm -rf "$work"
mkdir -p "$work"
bash "$check" "$bundle" --repo "$repo" --work "$work/ok"
rc=$?
if [[ $rc != 0 && $rc != 77 ]]; then echo "FAIL: the bundle is not self-contained"; exit 1; fi
fail=0
without() {  # PARTS LIBRARY: the check, on a copy lacking lib/LIBRARY, must fail
  local copy=$work/without-${2%%.so*}-$1
  cp -al "$bundle" "$copy" && rm "$copy/lib/$2"
  if bash "$check" "$copy" --repo "$repo" --work "$copy-check" --parts "$1" >"$copy.txt" 2>&1; then
    echo "FAIL: part $1 passed a bundle without lib/$2"
    fail=1
  else
    echo "ok: part $1 fails without lib/$2: $(grep -m1 'FAIL' "$copy.txt")"
  fi
}
without 1 libgfortran.so.5
without 2 libopenblas.so.0
((rc == 0)) && without 3 libgfortran.so.5
((fail)) && exit 1
exit $rc
