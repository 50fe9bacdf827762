#!/usr/bin/env bash
# The replay's engine figures through the real processes (kvctl run: kvsim-vllm x2 behind Caddy, and
# kvsim-lmcache for CPU_RAM): every engine figure of result.json is recomputed with jq from the
# scrapes in samples.jsonl, as replay_window.h defines it —
#   kv_cache_usage_mean: the mean over the periodic (in-replay) scrapes of the replicas' mean,
#     never the idle "before"/"after" scrapes nor a periodic one after the runner's last
#     response (engine.kv_cache_usage_until_s);
#   kv_cache_usage_max: the highest replica value in those scrapes;
#   prefix_cache_query/hit_tokens, external_query/hit_tokens: after - before, summed over the
#     replicas (absent on the GPU tier, which has no connector);
# and the labels say what LMCache's hit rate is (lookup-based) next to what offload served.
source "$(dirname "$0")/lib.sh"
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"
cat > "$WORK/spec.json" <<EOF
{
  "name": "replay-metrics",
  "model": "meta-llama/Llama-3.1-8B-Instruct",
  "build": "NVIDIA",
  "engine": "sim",
  "tiers": ["GPU", "CPU_RAM"],
  "replicas": 2,
  "dataset": {"code": "tau2-bench-v1", "path": "tau2_airline_gpt-4.1_results.json"},
  "num_rounds": 5,
  "concurrency": [4],
  "sessions": 8,
  "osl": 32,
  "sampling": {"period_s": 1, "rate_window_s": 20},
  "engine_overrides": {"num_gpu_blocks": 1024, "sim_time_scale": 0.05},
  "seed": 3
}
EOF
code=0
"$KV_BIN/kvctl" run "$WORK/spec.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results" >"$WORK/kvctl.out" 2>&1 || code=$?
exit_ok "$code" "$(cat "$WORK/kvctl.out")" || { cat "$WORK/kvctl.out" >&2; fail "kvctl run failed"; }
job_dir="$(ls -d "$WORK"/results/replay-metrics-*)"

# near A B: |A - B| <= 1e-9 x max(1, |B|)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
  if (m < 1) m = 1; exit !(d <= 1e-9 * m) }'; }

for scenario in 00-gpu-c4 01-cpu-ram-c4; do
  samples="$job_dir/$scenario/samples.jsonl"
  result="$job_dir/$scenario/result.json"
  [ -s "$samples" ] || fail "$scenario: no samples.jsonl"
  replicas='[.[] | select(.source | startswith("replica-"))]'
  periodic="$(jq -s "$replicas | map(select(.kind == \"periodic\")) | length" "$samples")"
  [ "$periodic" -ge 2 ] || fail "$scenario: only $periodic periodic replica scrapes; the test needs some"
  usage='.values["vllm:kv_cache_usage_perc"]'
  # In-replay: periodic, and not after the runner's last response as the agent saw it.
  until_s="$(jq '.engine.kv_cache_usage_until_s // 1e300' "$result")"
  in_replay="(.kind == \"periodic\" and .t_s <= $until_s)"
  mean="$(jq -s "$replicas | map(select($in_replay and $usage != null))
    | group_by(.t_s) | map(map($usage) | add / length) | add / length" "$samples")"
  max="$(jq -s "$replicas | map(select($in_replay) | $usage // empty) | max" "$samples")"
  all_mean="$(jq -s "$replicas | map(select($usage != null)) | group_by(.t_s)
    | map(map($usage) | add / length) | add / length" "$samples")"
  got_mean="$(jq '.engine.kv_cache_usage_mean' "$result")"
  got_max="$(jq '.engine.kv_cache_usage_max' "$result")"
  near "$got_mean" "$mean" ||
    fail "$scenario: kv_cache_usage_mean $got_mean, in-replay scrapes give $mean (all scrapes: $all_mean)"
  near "$got_max" "$max" || fail "$scenario: kv_cache_usage_max $got_max, in-replay scrapes give $max"
  echo "$scenario: KV usage mean $mean (all scrapes would give $all_mean), max $max"
  for pair in prefix_cache_query_tokens:vllm:prefix_cache_queries_total \
              prefix_cache_hit_tokens:vllm:prefix_cache_hits_total \
              external_query_tokens:vllm:external_prefix_cache_queries_total \
              external_hit_tokens:vllm:external_prefix_cache_hits_total; do
    field="${pair%%:*}" key="${pair#*:}"
    delta="$(jq -s --arg k "$key" "$replicas
      | (map(select(.kind == \"after\") | .values[\$k] // empty) | add) as \$after
      | (map(select(.kind == \"before\") | .values[\$k] // empty) | add) as \$before
      | if \$after == null then null else \$after - \$before end" "$samples")"
    got="$(jq --arg f "$field" '.engine[$f] // null | if . == null then null else tonumber end' "$result")"
    [ "$got" = "$delta" ] || fail "$scenario: engine.$field is $got, samples.jsonl gives $delta"
    echo "$scenario: $field $got"
  done
done
# The GPU tier has no connector: no external counters, so no external token figures.
[ "$(jq '.engine.external_hit_tokens' "$job_dir/00-gpu-c4/result.json")" = null ] ||
  fail "GPU tier has external_hit_tokens"
[ "$(jq '.engine.external_query_tokens' "$job_dir/01-cpu-ram-c4/result.json")" != null ] ||
  fail "CPU_RAM tier lacks external_query_tokens"

# The labels: LMCache's rate is lookup-based, shown beside what offload served.
out="$(cat "$WORK/kvctl.out")"
expect_contains "$out" "LMC_LOOKUP_HIT%"
expect_contains "$out" "OFFLOAD_SERVED_TOK"
expect_contains "$out" "KV_MEAN/MAX%"
compare="$("$KV_BIN/kvctl" compare "$job_dir")"
expect_contains "$compare" "LMCache lookup hit rate (%)"
expect_contains "$compare" "offload served tokens (tok)"
expect_contains "$compare" "KV cache usage max (%)"
case "$compare" in *"LMCache hit rate"*) fail "compare still says 'LMCache hit rate': $compare";; esac
"$KV_BIN/kvctl" results "$job_dir" --output csv > "$WORK/results.csv"
csv_header="$(sed -n 1p "$WORK/results.csv")"
expect_contains "$csv_header" "lmcache.lookup_hit_rate"
expect_contains "$csv_header" "engine.external_hit_tokens"
expect_contains "$csv_header" "engine.kv_cache_usage_max"
case "$csv_header" in *"lmcache.hit_rate"*) fail "CSV still has lmcache.hit_rate: $csv_header";; esac
"$KV_BIN/kvctl" report "$job_dir" --html "$WORK/report.html" >/dev/null
report="$(cat "$WORK/report.html")"
expect_contains "$report" "LMCache lookup hit rate (%)"
expect_contains "$report" "offload served tokens (external hits)"
echo "ok"
