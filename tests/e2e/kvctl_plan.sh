#!/usr/bin/env bash
# kvctl plan as a user runs it: the demo spec, a spec with three mistakes, help and version.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

out="$("$kvctl" plan "$KV_SOURCE/deploy/examples/demo-sim.json")"
expect_contains "$out" "job demo-sim: 6 scenarios (3 tiers x 2 concurrency values)"
for id in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2 03-gpu-c8 04-cpu-ram-c8 05-nvme-c8; do
  expect_contains "$out" "$id"
done

json="$("$kvctl" plan "$KV_SOURCE/deploy/examples/demo-sim.json" --output json)"
expect_contains "$json" '"scenario_id": "05-nvme-c8"'

cat > "$WORK/three-mistakes.json" <<'SPEC'
{"name": "three-mistakes", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
 "engine": "sim", "tiers": ["GPU", "SSD"], "replicas": 0, "dataset": {"code": "tau2-bench-v1"},
 "num_rounds": 5, "concurrency": [8, 8]}
SPEC
set +e
err="$("$kvctl" plan "$WORK/three-mistakes.json" 2>&1 >/dev/null)"
code=$?
set -e
[ "$code" -eq 2 ] || fail "kvctl plan on a bad spec exited $code, want 2"
expect_contains "$err" "3 problems"
expect_contains "$err" 'tiers[1]: "SSD" is not one of GPU, CPU_RAM, NVME'
expect_contains "$err" "replicas: 0 is out of range: must be between 1 and 64"
expect_contains "$err" "concurrency[1]: 8 is a duplicate of concurrency[0]"

set +e
"$kvctl" plan "$WORK/absent.json" >/dev/null 2>&1; code=$?
"$kvctl" plan >/dev/null 2>&1; usage=$?
"$kvctl" frobnicate >/dev/null 2>&1; unknown=$?
set -e
[ "$code" -eq 3 ] || fail "missing spec file exited $code, want 3 (NOT_FOUND)"
[ "$usage" -eq 2 ] || fail "kvctl plan without a spec exited $usage, want 2"
[ "$unknown" -eq 2 ] || fail "unknown subcommand exited $unknown, want 2"

for command in "" version plan; do
  help="$("$kvctl" $command --help)"
  expect_contains "$help" "Usage"
done
expect_contains "$("$kvctl" version)" "kvctl "
echo "PASS"
