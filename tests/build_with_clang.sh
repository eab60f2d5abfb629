#!/usr/bin/env bash
# Builds the extension with clang (warnings as errors) and runs a quick part of the suite against it:
# the C++ must compile with clang as well as with GCC. Usage, from the project's root:
#   bash tests/build_with_clang.sh [pytest arguments]     (default: the foundation and ISA tests)
# clang++ comes from the system's packages (Debian: apt-get install clang); CLANGXX overrides it.
set -euo pipefail
cd "$(dirname "$0")/.."
compiler=${CLANGXX:-clang++}
if ! command -v "$compiler" >/dev/null; then
  echo "clang build: $compiler not found (Debian: apt-get install clang); not run" >&2
  exit "${PAPERKERNELS_REQUIRE_CLANG:-0}"
fi
work=${PAPERKERNELS_CLANG_DIR:-build/clang}
pkg="$work/python"
rm -rf "$pkg" && mkdir -p "$pkg"
cp -r python/paperkernels "$pkg/"
rm -f "$pkg"/paperkernels/_core*.so
launcher=$(command -v ccache || true)
cmake -S . -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$compiler" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} \
  -DCMAKE_CXX_FLAGS="-Werror" -DPAPERKERNELS_OUTPUT_DIR="$PWD/$pkg/paperkernels" >/dev/null
cmake --build "$work/cmake" -j"${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
PYTHONPATH="$PWD/$pkg" python -c "from paperkernels import _core; i = _core.build_info(); print('built with', i['compiler_id'], i['compiler_version'])"
if [ $# -eq 0 ]; then
  set -- tests/test_foundation.py tests/test_isa.py tests/test_toptwo.py tests/test_shapes_zernike.py
fi
PYTHONPATH="$PWD/$pkg" python -m pytest -q -p no:cacheprovider "$@"
