#!/usr/bin/env bash
# Builds kvbench's Debian packages (kvbench-agent, kvbench-controller, kvbench-cli, kvbench-sim:
# cmake/KvPackaging.cmake, docs/packages.md) with CPack, and checks them with lintian: an error
# or a warning that deploy/debian/*.lintian-overrides does not justify fails it. Prints the
# folder of the .debs last.
#   KV_BUILD_DIR    the build to package (default build): its six programs are brought up to
#                   date there first (deploy/build.sh with KV_TARGETS; the tests are not built).
#                   Packaging the build that deploy/build.sh and deploy/test.sh keep costs only an
#                   incremental build; a fresh folder compiles the programs from scratch.
#   KV_PACKAGE_DIR  where the .debs go (default $KV_BUILD_DIR/packages), emptied first
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(realpath -m "${KV_BUILD_DIR:-$root/build}")"
out="$(realpath -m "${KV_PACKAGE_DIR:-$build_dir/packages}")"

"$root/deploy/setup.sh" package
KV_BUILD_DIR="$build_dir" KV_TARGETS="kv-agent kv-controller kvctl kv-runner kvsim-vllm kvsim-lmcache" \
  "$root/deploy/build.sh"

rm -rf "$out"
mkdir -p "$out"
# cpack installs each component (stripped) into a staging folder under $out and packs it; it
# builds nothing itself.
(cd "$build_dir" && cpack -G DEB --config CPackConfig.cmake -B "$out") >"$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log" >&2; echo "package: cpack failed" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
debs=("$out"/kvbench-*.deb)
[ "${#debs[@]}" = 4 ] || { echo "package: expected 4 packages, got: ${debs[*]}" >&2; exit 1; }

# lintian refuses nothing as root but says so; the tags are what matter.
if ! lintian --fail-on error,warning "${debs[@]}" >"$out/lintian.log" 2>&1; then
  cat "$out/lintian.log" >&2
  echo "package: lintian found errors or warnings (above)" >&2
  exit 1
fi
for deb in "${debs[@]}"; do
  printf '%s  %s\n' "$(basename "$deb")" "$(dpkg-deb -f "$deb" Installed-Size) KiB installed"
done
echo "lintian: no error or warning (overrides, each with its reason: deploy/debian/*.lintian-overrides)"
echo "$out"
