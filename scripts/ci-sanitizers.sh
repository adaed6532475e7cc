#!/usr/bin/env bash
# CI: the unit tests once more, built with AddressSanitizer + UndefinedBehaviorSanitizer in a
# second build directory (CPU only, no MPI: the MPI tests are excluded).
# Usage: scripts/ci-sanitizers.sh [BUILD_DIR]   (default build-asan; JOBS=2 by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-asan}
jobs=${JOBS:-2}
start=$SECONDS
mkdir -p "$build"
# -O1 -g1, as the ASan docs suggest: a third of -O2 -g's compile time here (strategy_test.cpp
# 31 s vs 79 s), still fast enough to run, with file:line in every report's stack.
cmake -S "$root" -B "$build" -DSL_SANITIZE=ON -DSL_CUDA=OFF -DSL_MPI=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
# The unit-test executables of each layer (tests/<layer>/CMakeLists.txt). The fuzz regression
# inputs run under ASan+UBSan in scripts/ci-fuzz.sh (fuzz_regressions_test would add the
# train and experiment layers to this build).
targets=(tensor_tests autograd_tests test_models data_corpus_test data_sentencepiece_test data_batch_test
         test_eval_metrics test_bleu_app bleu distributed_tests test_decoding)
cmake --build "$build" -j"$jobs" --target "${targets[@]}"
echo "ci-sanitizers: built in $((SECONDS - start)) s"
# halt_on_error: a UBSan report fails the test instead of scrolling past.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
ctest -L '^(unit|data|eval|models|distributed)$' -LE '^(mpi|cuda|e2e)$' --output-on-failure -j"$jobs" --timeout 300
echo "ci-sanitizers: passed in $((SECONDS - start)) s"
