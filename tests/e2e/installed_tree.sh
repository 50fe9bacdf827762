#!/usr/bin/env bash
# kvbench as installed (`cmake --install`): the programs in P/bin find the profiles and the demo's
# dataset in P/share/kvbench, so the shipped demo spec runs from any folder with no environment
# variable and no flag naming them. A reduced sweep (GPU and NVME at 2 users) keeps it short.
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
sed -e 's/"concurrency": \[2, 16\]/"concurrency": [2]/' \
  -e 's/"tiers": \["GPU", "CPU_RAM", "NVME"\]/"tiers": ["GPU", "NVME"]/' \
  "$prefix/share/kvbench/examples/demo-sim.json" > "$WORK/small.json"
grep -q '"concurrency": \[2\]' "$WORK/small.json" || fail "the demo spec changed shape"
mkdir -p "$WORK/elsewhere"
out="$(cd "$WORK/elsewhere" && "$prefix/bin/kvctl" run "$WORK/small.json" --out results 2>"$WORK/err")" ||
  { cat "$WORK/err" >&2; echo "$out" >&2; fail "the installed kvctl run failed"; }
for tier in GPU NVME; do
  echo "$out" | grep -Eq "^ *2 +$tier +32/32 .* ok" || fail "no ok row for $tier in:
$out"
done
echo "PASS"
