#!/usr/bin/env bash
# Builds the extension with AddressSanitizer and UndefinedBehaviorSanitizer and runs the whole test
# suite against it. Any sanitizer report fails the run (UBSan halts on the first error).
# Usage, from the project's root: bash tests/sanitize.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${PAPERKERNELS_SANITIZE_DIR:-build/sanitize}
pkg="$work/python"
rm -rf "$pkg" && mkdir -p "$pkg"
cp -r python/paperkernels "$pkg/"
rm -f "$pkg"/paperkernels/_core*.so
cmake -S . -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPAPERKERNELS_SANITIZE=address,undefined -DPAPERKERNELS_OUTPUT_DIR="$PWD/$pkg/paperkernels" >/dev/null
cmake --build "$work/cmake" -j"${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
asan=$(g++ -print-file-name=libasan.so)
ubsan=$(g++ -print-file-name=libubsan.so)
log="$work/reports"
rm -rf "$log" && mkdir -p "$log"
# CPython itself is not built with ASan: leak checking would report the interpreter's own arenas.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$PWD/$log/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$PWD/$log/ubsan"
export PYTHONPATH="$PWD/$pkg"
export PAPERKERNELS_SANITIZED=1
status=0
# Reports of subprocesses that do not honour log_path (dask workers) land in the output: keep it too.
LD_PRELOAD="$asan $ubsan" python -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$work/pytest.out" || status=$?
if compgen -G "$log/*" >/dev/null; then
  echo "sanitizer reports:"; cat "$log"/*; exit 1
fi
if grep -E "runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer" "$work/pytest.out" >/dev/null; then
  echo "sanitizer reports in the test output:"; grep -E -A3 "runtime error:|ERROR: [A-Za-z]+Sanitizer" "$work/pytest.out"; exit 1
fi
exit $status
