#!/usr/bin/env bash
# Cross-check against the real thing: a real Prometheus is given the very samples
# our sampler recorded from a kvsim-vllm run with two replicas, and our sum(rate(hits)),
# sum(rate(queries)) and hit-rate series (agent/sampler/rate_math.h: rate per replica, summed,
# then divided) must equal PromQL's sum(rate(x[W])) and their ratio at the same steps within 1%.
#
# Debian 12's Prometheus is 2.42, whose range selectors are left-closed [t - W, t]; ours default
# to Prometheus 3's left-open (t - W, t]. So two comparisons:
#   1. WindowEdge::kLeftClosed at the sampler's own steps (the last sample - k x period, aligned
#      to the end of the replay), like with like.
#   2. Our default, left-open, at steps offset by half a period, where no sample sits on a
#      window's edge and both semantics select the same samples.
#   3. The final figures of result.json (below).
# Fails when Prometheus is not installed: deploy/setup.sh installs it.
source "$(dirname "$0")/lib.sh"
for tool in prometheus promtool; do
  command -v "$tool" >/dev/null && "$tool" --version >/dev/null 2>&1 ||
    fail "$tool is not installed or does not run (deploy/setup.sh installs 'prometheus')"
done
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"
rates="$KV_BIN/kv-sample-rates"

# Sampling at 2 s simulated = 1 s real (sim_time_scale 0.5), rate window 8 s = 4 s real: the
# ~12 s replay makes ~12 steps and three full windows.
readonly period_s=2 window_s=8 time_scale=0.5
step="$(awk "BEGIN { print $period_s * $time_scale }")"
window="$(awk "BEGIN { print $window_s * $time_scale }")"
window_ms="$(awk "BEGIN { print $window * 1000 }")"
half_step="$(awk "BEGIN { print $step / 2 }")"
cat > "$WORK/spec.json" <<EOF
{
  "name": "prometheus-crosscheck",
  "model": "meta-llama/Llama-3.1-8B-Instruct",
  "build": "NVIDIA",
  "engine": "sim",
  "tiers": ["CPU_RAM"],
  "replicas": 2,
  "dataset": {"code": "tau2-bench-v1", "path": "tau2_airline_gpt-4.1_results.json"},
  "num_rounds": 10,
  "concurrency": [2],
  "sessions": 10,
  "osl": 64,
  "sampling": {"period_s": $period_s, "rate_window_s": $window_s},
  "engine_overrides": {"num_gpu_blocks": 2048, "sim_time_scale": $time_scale},
  "seed": 7
}
EOF
"$KV_BIN/kvctl" run "$WORK/spec.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results" >"$WORK/kvctl.out" 2>&1 || { cat "$WORK/kvctl.out" >&2; fail "kvctl run failed"; }
samples="$(ls "$WORK"/results/prometheus-crosscheck-*/00-cpu-ram-c2/samples.jsonl)"

# The samples as OpenMetrics, at a fixed epoch base (2023-11-14), into TSDB blocks; and again
# with every time x 1000 from a later base (the third check, below), the two far apart.
readonly epoch_s=1700000000 stretched_epoch_s=1700100000 stretch=1000
"$rates" openmetrics --samples "$samples" --epoch_s "$epoch_s" > "$WORK/samples.om"
"$rates" openmetrics --samples "$samples" --epoch_s "$stretched_epoch_s" --stretch "$stretch" \
  > "$WORK/stretched.om"
for om in samples stretched; do
  promtool tsdb create-blocks-from openmetrics "$WORK/$om.om" "$WORK/tsdb" \
    >"$WORK/promtool.out" 2>&1 ||
    { cat "$WORK/promtool.out" >&2; fail "promtool tsdb create-blocks-from $om.om failed"; }
done
printf 'global:\n  scrape_interval: 1m\n' > "$WORK/prometheus.yml"  # no scrape jobs

start_prometheus "$WORK/prometheus.yml"
echo "$(prometheus --version 2>&1 | head -1) on 127.0.0.1:$port; step ${step}s, window ${window}s"

# query_range NAME EXPR START END: PromQL's answer at START + k x step into $WORK/promql/NAME.json.
query_range() {
  curl -sf --get "http://127.0.0.1:$port/api/v1/query_range" --data-urlencode "query=$2" \
    --data-urlencode "start=$3" --data-urlencode "end=$4" --data-urlencode "step=$step" \
    > "$WORK/promql/$1.json" || fail "query_range $2 failed"
}
hits="sum(rate(vllm:prefix_cache_hits_total[${window_ms}ms]))"
queries="sum(rate(vllm:prefix_cache_queries_total[${window_ms}ms]))"
status=0
for check in "left_closed 0" "left_open $half_step"; do
  read -r edge offset <<< "$check"
  read -r start end < <("$rates" range --samples "$samples" --epoch_s "$epoch_s" \
    --step_s "$step" --offset_s "$offset")
  mkdir -p "$WORK/promql" && rm -f "$WORK/promql"/*.json
  query_range hits "$hits" "$start" "$end"
  query_range queries "$queries" "$start" "$end"
  query_range hit_rate "$hits / $queries" "$start" "$end"
  echo "--- ours ($edge) vs Prometheus 2.42 at steps last sample - $offset s - k x $step s"
  "$rates" compare --samples "$samples" --epoch_s "$epoch_s" --step_s "$step" --window_s "$window" \
    --offset_s "$offset" --edge "$edge" --promql_dir "$WORK/promql" --tolerance 0.01 || status=1
done

# The figures a user reads: result.json's local and external hit rates (the mean of the ratio
# series' final quarter by time, hit_rate_method ROLLING_FINAL_QUARTER) against the same mean of
# PromQL's sum(rate(hits)) / sum(rate(queries)) at the sampler's steps (the last scrape - k x
# period), computed here with jq from Prometheus's answers alone. The result used left-open
# windows (t - W, t]; 2.42 has only [t - W', t], which with W' = W - 1 ms selects the same samples
# (the sampler's times are whole ms, as Prometheus's: sampler.h ToScrapeResolution) but
# extrapolates a counter's first sample 1 ms less far back. On the samples' own times that 1 ms
# moved a ratio by up to 3.4e-4, and now and then flipped PromQL's test "first sample within
# 1.1 average intervals of the window's start" for a counter at one step (an external hit rate
# 1.8% off). So this check reads the stretched copy: every time x 1000, steps and window too. A
# ratio of rates is the same in any time unit, and the 1 ms is then a millionth of a window.
read -r first last < <("$rates" range --samples "$samples" --epoch_s "$stretched_epoch_s" \
  --stretch "$stretch")
read -r start end < <("$rates" range --samples "$samples" --epoch_s "$stretched_epoch_s" \
  --stretch "$stretch" --step_s "$step" --offset_s 0)
step="$(awk "BEGIN { print $step * $stretch }")"
open_window="$((window_ms * stretch - 1))ms"
result="$(ls "$WORK"/results/prometheus-crosscheck-*/00-cpu-ram-c2/result.json)"
method="$(jq -r '.engine.hit_rate_method' "$result")"
[ "$method" = HIT_RATE_ROLLING_FINAL_QUARTER ] ||
  fail "result.json's hit rates are not final-quarter means (hit_rate_method $method)"
for pair in "local_hit_rate prefix_cache" "external_hit_rate external_prefix_cache"; do
  read -r field counter <<< "$pair"
  mkdir -p "$WORK/promql" && rm -f "$WORK/promql"/*.json
  query_range "$field" "sum(rate(vllm:${counter}_hits_total[$open_window])) /
    sum(rate(vllm:${counter}_queries_total[$open_window]))" "$start" "$end"
  # Steps in the final quarter of [first scrape, last scrape]; 0/0 steps (NaN) are not steps.
  promql="$(jq -r --argjson from "$(awk "BEGIN { printf \"%.3f\", $first + 0.75 * ($last - $first) }")" '
    [.data.result[0].values[] | select(.[0] >= $from) | .[1] | select(test("^[-0-9.e+]+$"))
      | tonumber] | "\(length) \(if length > 0 then add / length else 0 end)"' \
    "$WORK/promql/$field.json")"
  read -r points promql_mean <<< "$promql"
  ours="$(jq -r ".engine.$field" "$result")"
  # Relative difference; 0 when both are 0 (a run whose offload served nothing in its final
  # quarter: both sides must say exactly 0 then).
  difference="$(awk -v a="$ours" -v b="$promql_mean" 'BEGIN { d = a - b; if (d < 0) d = -d;
      if (b < 0) b = -b; printf "%.1e", d == 0 ? 0 : (b > 0 ? d / b : 1) }')"
  echo "result.json $field $ours; PromQL's final-quarter mean $promql_mean ($points steps;" \
    "relative difference $difference)"
  [ "$points" -ge 2 ] || fail "PromQL's $field has $points steps in the final quarter (need 2+)"
  awk -v d="$difference" 'BEGIN { exit !(d <= 1e-5) }' ||
    { status=1; echo "  differs by more than 1e-5 (relative)"; }
done

kill -TERM "$prometheus_pid"
wait "$prometheus_pid" 2>/dev/null || true
[ "$status" -eq 0 ] || fail "our figures differ from PromQL's (above)"
echo "PASS"
