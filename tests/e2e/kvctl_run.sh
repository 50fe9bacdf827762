#!/usr/bin/env bash
# kvctl run as a user runs it: the demo job end to end on the simulators (real Caddy, real
# processes on loopback) from a folder outside the checkout with no environment variable set (the
# profiles and the demo's dataset are found beside kvctl), then a spec whose dataset cannot be
# found.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
unset KV_DATASET_MIRROR KV_PROFILES_DIR KV_DATASET_CACHE

mkdir -p "$WORK/elsewhere"
code=0
out="$(cd "$WORK/elsewhere" && "$kvctl" run "$KV_SOURCE/deploy/examples/demo-sim.json" \
  --out results 2>"$WORK/err")" || code=$?
exit_ok "$code" "$out" || { cat "$WORK/err" >&2; echo "$out" >&2; fail "kvctl run exited $code"; }
mv "$WORK/elsewhere/results" "$WORK/results"
for phase in starting_cache_server starting_replicas starting_proxy replay collecting teardown; do
  expect_contains "$out" "$phase"
done
for tier in GPU CPU_RAM NVME; do
  for concurrency in 2 16; do
    grep -Eq "^ *$concurrency +$tier +32/32 +[0-9.]+ +[0-9.]+ .* ok +[a-z_,-]+ *$" <<<"$out" ||
      fail "no ok row for $tier at concurrency $concurrency in:
$out"
  done
done
job_dir="$(ls -d "$WORK"/results/demo-sim-*)"
for scenario in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2 03-gpu-c16 04-cpu-ram-c16 05-nvme-c16; do
  [ -s "$job_dir/$scenario/result.json" ] || fail "no result.json for $scenario"
  [ -s "$job_dir/$scenario/requests.jsonl" ] || fail "no requests.jsonl for $scenario"
  [ -s "$job_dir/$scenario/logs/replica-0.log" ] || fail "no replica log for $scenario"
done
expect_contains "$(cat "$job_dir/01-cpu-ram-c2/result.json")" '"tier": "CPU_RAM"'
# The demo's headline: at its top concurrency the conversations outgrow GPU memory, the group is
# valid (not "not_exercised"), and both offload tiers served external prefix-cache hits — in the
# replicas' own counters (after - before, per replica, from samples.jsonl) and in the result.
expect_verdict "$out" c16 valid
external_hits() {
  awk -F'"vllm:external_prefix_cache_hits_total":' '/"source":"replica-/ {
      split($2, value, /[,}]/)
      if ($0 ~ /"kind":"before"/) before += value[1]
      if ($0 ~ /"kind":"after"/) after += value[1]
    } END { print after - before }' "$1"
}
for scenario in 04-cpu-ram-c16 05-nvme-c16; do
  hits="$(external_hits "$job_dir/$scenario/samples.jsonl")"
  awk -v h="$hits" 'BEGIN { exit !(h > 0) }' || fail "$scenario: no external hits in samples.jsonl ($hits)"
  rate="$(grep -o '"external_hit_rate": [0-9.e+-]*' "$job_dir/$scenario/result.json" | sed 's/.*: //')"
  awk -v r="${rate:-0}" 'BEGIN { exit !(r > 0) }' || fail "$scenario: external_hit_rate is '${rate}'"
done
# The simulated engine's times are shown in simulated seconds, and labelled so: the
# demo's sim_time_scale is 0.25, so each TTFT is the observed one x 4. Recomputed here from the
# raw per-request records: p50 (linear interpolation, percentiles.h) of the successful
# requests' ttft_s, / 0.25, in ms; and requests/s x 0.25.
expect_contains "$out" "times in simulated seconds (sim_time_scale 0.25: observed × 4)"
expect_contains "$out" "SIM_TTFT_P50_MS"
for scenario in 03-gpu-c16 04-cpu-ram-c16; do
  tier="$(jq -r .tier "$job_dir/$scenario/result.json")"
  p50_ms="$(jq -s '[.[] | select(.error == null and .ttft_s != null) | .ttft_s] | sort
    | ((length - 1) * 0.5) as $h | ($h | floor) as $lo
    | (if $lo + 1 < length then .[$lo] + ($h - $lo) * (.[$lo + 1] - .[$lo]) else .[$lo] end)
    / 0.25 * 1000' "$job_dir/$scenario/requests.jsonl")"
  row="$(echo "$out" | grep -E "^ *16 +$tier +32/32 ")" || fail "no row for $tier at 16 in: $out"
  shown="$(echo "$row" | awk '{ print $4 }')"
  awk -v a="$shown" -v b="$p50_ms" 'BEGIN { d = a - b; exit !(d < 0.051 && d > -0.051) }' ||
    fail "$scenario: table shows SIM_TTFT_P50_MS $shown, requests.jsonl / 0.25 gives $p50_ms"
  observed="$(jq .latency.ttft_p50_s "$job_dir/$scenario/result.json")"
  simulated="$(jq .simulated_latency.ttft_p50_s "$job_dir/$scenario/result.json")"
  awk -v o="$observed" -v s="$simulated" 'BEGIN { exit !(s > 3.999 * o && s < 4.001 * o) }' ||
    fail "$scenario: result.json simulated_latency $simulated is not latency $observed x 4"
done
# The verdict and the comparison follow the table; the folder reads back as a job.
expect_contains "$out" "comparison c2:"
expect_contains "$out" "TTFT p95 (sim ms)"
[ -s "$job_dir/job.json" ] || fail "no job.json"
# The embedded controller's store is the job's own, in its folder, and says what job.json says;
# the embedded agent's event spool is gone.
[ -s "$job_dir/job.db" ] || fail "no job.db in $job_dir"
python3 - "$job_dir" <<'PY' || fail "job.db does not hold the job of job.json"
import json, os, sqlite3, sys
job = json.load(open(os.path.join(sys.argv[1], "job.json")))
db = sqlite3.connect(os.path.join(sys.argv[1], "job.db"))
tables = {row[0] for row in db.execute("select name from sqlite_master where type='table'")}
assert "jobs" in tables, tables
ids = [row[0] for row in db.execute("select job_id from jobs")]
assert ids == [job["job_id"]], (ids, job["job_id"])
assert job["state"] == "JOB_STATE_SUCCEEDED", job["state"]
PY
[ -z "$(ls -d "$WORK"/results/.run/*.spool 2>/dev/null)" ] || fail "the embedded agent's spool was left"
again="$("$kvctl" results "$WORK/results")"
for tier in GPU CPU_RAM NVME; do
  row="$(echo "$out" | grep -E "^ *16 +$tier +32/32 ")"
  expect_contains "$again" "$row"
done
compare="$("$kvctl" compare "$job_dir")"
expect_contains "$compare" "concurrency 16"
expect_contains "$compare" "VS_GPU"
csv="$("$kvctl" results "$WORK/results" --output csv)"
[ "$(echo "$csv" | wc -l)" -eq 7 ] || fail "csv is not a header and 6 rows: $csv"
expect_contains "$(echo "$csv" | head -1)" "latency.ttft_p95_s"
expect_contains "$(echo "$csv" | head -1)" "simulated_latency.ttft_p95_s"
expect_contains "$(echo "$csv" | head -1)" "sim_time_scale"
expect_contains "$compare" "TTFT p95 (sim ms)"
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
