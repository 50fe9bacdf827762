#!/usr/bin/env bash
# kvctl run as a user runs it: the demo job end to end on the simulators (real Caddy, real
# processes on loopback), then a spec whose dataset cannot be found.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"

out="$("$kvctl" run "$KV_SOURCE/deploy/examples/demo-sim.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results" 2>"$WORK/err")" || { cat "$WORK/err" >&2; echo "$out" >&2; fail "kvctl run failed"; }
for phase in starting_cache_server starting_replicas starting_proxy replay collecting teardown; do
  expect_contains "$out" "$phase"
done
for tier in GPU CPU_RAM NVME; do
  for concurrency in 2 8; do
    echo "$out" | grep -Eq "^ *$concurrency +$tier +16/16 +[0-9.]+ +[0-9.]+ .* ok +[a-z_,-]+ *$" ||
      fail "no ok row for $tier at concurrency $concurrency in:
$out"
  done
done
job_dir="$(ls -d "$WORK"/results/demo-sim-*)"
for scenario in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2 03-gpu-c8 04-cpu-ram-c8 05-nvme-c8; do
  [ -s "$job_dir/$scenario/result.json" ] || fail "no result.json for $scenario"
  [ -s "$job_dir/$scenario/requests.jsonl" ] || fail "no requests.jsonl for $scenario"
  [ -s "$job_dir/$scenario/logs/replica-0.log" ] || fail "no replica log for $scenario"
done
expect_contains "$(cat "$job_dir/01-cpu-ram-c2/result.json")" '"tier": "CPU_RAM"'
# The verdict and the comparison follow the table; the folder reads back as a job.
expect_contains "$out" "comparison c2:"
expect_contains "$out" "TTFT p95 (ms)"
[ -s "$job_dir/job.json" ] || fail "no job.json"
again="$("$kvctl" results "$WORK/results")"
for tier in GPU CPU_RAM NVME; do
  row="$(echo "$out" | grep -E "^ *8 +$tier +16/16 ")"
  expect_contains "$again" "$row"
done
compare="$("$kvctl" compare "$job_dir")"
expect_contains "$compare" "concurrency 8"
expect_contains "$compare" "VS_GPU"
csv="$("$kvctl" results "$WORK/results" --output csv)"
[ "$(echo "$csv" | wc -l)" -eq 7 ] || fail "csv is not a header and 6 rows: $csv"
expect_contains "$(echo "$csv" | head -1)" "latency.ttft_p95_s" 
# The NVME tier's L2 pool is wiped after each scenario.
[ -z "$(ls -A "$job_dir/nvme-cache" 2>/dev/null)" ] || fail "NVMe cache dir left behind"

sed 's/"path": "tau2_airline_gpt-4.1_results.json"/"path": "no-such-file.json"/' \
  "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/missing.json"
set +e
err="$("$kvctl" run "$WORK/missing.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results2" 2>&1)"
code=$?
set -e
[ "$code" -ne 0 ] || fail "kvctl run with a missing dataset succeeded"
expect_contains "$err" "no-such-file.json"
echo "PASS"
