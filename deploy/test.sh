#!/usr/bin/env bash
# The README's second command: sets up, builds, and runs the whole test suite through ctest.
#   KV_SANITIZE=1  runs it on the ASan + UBSan build instead (build-asan/)
#   extra arguments go to ctest (e.g. -R kvctl)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/setup.sh"
"$root/deploy/build.sh"
default_dir=build
[ "${KV_SANITIZE:-0}" = 1 ] && default_dir=build-asan
build_dir="${KV_BUILD_DIR:-$root/$default_dir}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/deploy/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
  -j "${KV_TEST_JOBS:-$(nproc)}" --timeout 300 "$@"
