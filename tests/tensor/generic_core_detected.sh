#!/usr/bin/env bash
# The generic-core check must be able to fail: with OPENBLAS_CORETYPE=Prescott forced by the
# user on a CPU with AVX2, the loader keeps it (the user asked), tensor_tests' check fails and
# run-experiment --version prints one warning line naming it.
# Usage: generic_core_detected.sh TENSOR_TESTS RUN_EXPERIMENT
set -u
tests=$1 run=$2
if ! grep -qw avx2 /proc/cpuinfo; then echo "SKIP: this CPU has no AVX2"; exit 77; fi
if OPENBLAS_CORETYPE=Prescott "$tests" --gtest_filter=BlasLibrary.LoadedCoreIsNotGenericOnThisCpu >/tmp/sl-gcd.$$ 2>&1; then
  cat /tmp/sl-gcd.$$; rm -f /tmp/sl-gcd.$$
  echo "FAIL: the generic-core test passed with OPENBLAS_CORETYPE=Prescott"; exit 1
fi
rm -f /tmp/sl-gcd.$$
lib=$(SL_BLAS="${SL_BLAS:-}" "$run" --version 2>/dev/null | sed -n 's/^BLAS: \([A-Za-z-]*\).*/\1/p')
if [ "$lib" != OpenBLAS ] && [ "$lib" != scipy-openblas ]; then
  echo "SKIP: the BLAS in use ($lib) does not take OPENBLAS_CORETYPE"; exit 77
fi
warn=$(OPENBLAS_CORETYPE=Prescott "$run" --version 2>&1 >/dev/null | grep -c "generic")
if [ "$warn" != 1 ]; then
  echo "FAIL: run-experiment --version printed $warn warning lines about a generic core (want 1)"; exit 1
fi
echo "OK: a forced generic core fails the check and run-experiment warns once"
