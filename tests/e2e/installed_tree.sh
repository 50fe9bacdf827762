#!/usr/bin/env bash
# kvbench as installed (`cmake --install`): the programs in P/bin find the profiles and the demo's
# dataset in P/share/kvbench, so the shipped demo spec runs from any folder with no environment
# variable and no flag naming them; the systemd units name P/bin. The demo runs with the source
# and build trees hidden (an empty tmpfs over each, in a mount namespace of its own), so the
# installed tree stands alone. A reduced sweep (GPU and NVME at 2 users) keeps it short.
source "$(dirname "$0")/lib.sh"
: "${KV_BUILD_DIR:?KV_BUILD_DIR must point at the build folder}"
unset KV_DATASET_MIRROR KV_PROFILES_DIR KV_DATASET_CACHE
prefix="$WORK/prefix"
cmake --install "$KV_BUILD_DIR" --prefix "$prefix" --strip >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }
for program in kvctl kv-agent kv-controller kv-runner kvsim-vllm kvsim-lmcache; do
  [ -x "$prefix/bin/$program" ] || fail "$program not installed"
done
for file in profiles/sim-vllm.json profiles/vllm-nvidia.json datasets/tau2_airline_gpt-4.1_results.json \
  datasets/LICENSE-tau2-bench.txt examples/demo-sim.json; do
  [ -s "$prefix/share/kvbench/$file" ] || fail "share/kvbench/$file not installed"
done
for unit in kv-agent kv-controller; do
  file="$prefix/lib/systemd/system/$unit.service"
  [ -s "$file" ] || fail "lib/systemd/system/$unit.service not installed"
  grep -q "^ExecStart=$prefix/bin/$unit " "$file" || fail "$unit.service does not start $prefix/bin/$unit:
$(grep -n Exec "$file")"
  ! grep -n '@[A-Z_]*@\|/usr/local/bin' "$file" || fail "$unit.service has a path not of the prefix"
  # systemd accepts every line (it only warns on a bad one, hence the empty output), and the
  # hardening holds (without it both run as root, exposure 9.6 UNSAFE).
  verify="$(systemd-analyze verify "$file" 2>&1)" || fail "systemd-analyze verify $unit: $verify"
  [ -z "$verify" ] || fail "systemd-analyze verify $unit.service warns: $verify"
  grep -q '^User=kvbench$' "$file" || fail "$unit.service does not run as kvbench"
  exposure="$(systemd-analyze security --offline=yes "$file" 2>/dev/null |
    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
  [ -n "$exposure" ] || fail "systemd-analyze security printed no exposure for $unit"
  max_exposure=2.0
  [ "$unit" = kv-agent ] && max_exposure=4.5  # GPUs, NVMe paths and the engines' runtimes
  awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }' ||
    fail "$unit.service exposure $exposure, above $max_exposure"
done
sed -e 's/"concurrency": \[2, 16\]/"concurrency": [2]/' \
  -e 's/"tiers": \["GPU", "CPU_RAM", "NVME"\]/"tiers": ["GPU", "NVME"]/' \
  "$prefix/share/kvbench/examples/demo-sim.json" > "$WORK/small.json"
grep -q '"concurrency": \[2\]' "$WORK/small.json" || fail "the demo spec changed shape"
mkdir -p "$WORK/elsewhere"
# Runs "$@" from $WORK/elsewhere with the source and build trees out of reach.
run_standalone() {
  local source build
  source="$(cd "$KV_SOURCE" && pwd -P)"
  build="$(cd "$KV_BUILD_DIR" && pwd -P)"
  if unshare --mount --propagation private true 2>/dev/null; then
    unshare --mount --propagation private bash -c \
      'mount -t tmpfs kv-hidden "$2" && mount -t tmpfs kv-hidden "$1" &&
       [ ! -e "$1/README.md" ] && [ ! -e "$2/bin" ] && shift 2 && cd "$WORK/elsewhere" && exec "$@"' \
      hide "$source" "$build" "$@"
  else
    echo "NOTE: unshare --mount is not allowed here; the source tree stays visible" >&2
    (cd "$WORK/elsewhere" && exec "$@")
  fi
}
export WORK
out="$(run_standalone "$prefix/bin/kvctl" run "$WORK/small.json" --out results 2>"$WORK/err")" ||
  { cat "$WORK/err" >&2; echo "$out" >&2; fail "the installed kvctl run failed"; }
for tier in GPU NVME; do
  grep -Eq "^ *2 +$tier +32/32 .* ok" <<<"$out" || fail "no ok row for $tier in:
$out"
done
echo "PASS"
