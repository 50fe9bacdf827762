#!/usr/bin/env bash
# Configures and builds kvbench with CMake + Ninja. Executables land in $KV_BUILD_DIR/bin.
#   KV_SANITIZE=1   ASan + UBSan build (default dir build-asan)
#   KV_BUILD_DIR    build directory (default build, or build-asan)
#   KV_BUILD_TYPE   CMake build type (default RelWithDebInfo)
#   KV_JOBS         parallel compile jobs (default: number of cores)
#   KV_TARGETS      what to build (default: everything; `demo`: what deploy/quickstart.sh runs)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize="${KV_SANITIZE:-0}"
default_dir=build
[ "$sanitize" = 1 ] && default_dir=build-asan
build_dir="${KV_BUILD_DIR:-$root/$default_dir}"
jobs="${KV_JOBS:-$(nproc)}"

# Let ccache reuse objects across clones in other folders (CI builds a fresh clone each time):
# paths under the source root are hashed relative to it.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

sanitize_flag=OFF
[ "$sanitize" = 1 ] && sanitize_flag=ON
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${KV_BUILD_TYPE:-RelWithDebInfo}" -DKV_SANITIZE="$sanitize_flag" \
  -DKV_WERROR=ON >/dev/null
# --quiet: no progress lines, only compiler output (warnings are errors, so normally nothing).
# shellcheck disable=SC2086 # KV_TARGETS is a list of target names
ninja -C "$build_dir" -j "$jobs" --quiet ${KV_TARGETS:-}
