#!/usr/bin/env bash
# The capacity search through the real processes (kvctl run: kvsim-vllm, and kvsim-lmcache for
# CPU_RAM): a capacity search against a simulator set to saturate at a concurrency known in
# advance. vLLM's --max-num-seqs 4 (engine_overrides.max_num_seqs) lets a replica run 4 requests
# at once; a fifth user waits in its queue for a whole request to end, so TTFT p95 jumps from
# the prefill alone to a request's length past 4 users, on both tiers. With the SLO between the
# two, each tier's capacity is 4.
#  - the search galloped and bisected (probes 2, 4, 8, 6, 5), its probes added as rounds ended;
#  - job.json, compare --output json, results --output json and the report give the same answer,
#    the headline first in kvctl run's output;
#  - every probe's TTFT p95 is recomputed with jq from its repeats' requests.jsonl (pooled, in
#    simulated seconds), inside its interval, and its outcome is what its interval says against
#    the target; the capacity is the largest met probe under the smallest miss.
source "$(dirname "$0")/lib.sh"
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"
scale=0.1
target=1.0
cat > "$WORK/spec.json" <<EOF
{
  "name": "capacity",
  "model": "meta-llama/Llama-3.1-8B-Instruct",
  "build": "NVIDIA",
  "engine": "sim",
  "tiers": ["GPU", "CPU_RAM"],
  "dataset": {"code": "tau2-bench-v1", "path": "tau2_airline_gpt-4.1_results.json"},
  "num_rounds": 5,
  "isl": 4096,
  "osl": 256,
  "concurrency": {"search": {"min": 2, "max": 16}},
  "slo": {"ttft_p95_s": $target},
  "sampling": {"period_s": 1, "rate_window_s": 20},
  "engine_overrides": {"num_gpu_blocks": 16384, "max_num_seqs": 4, "sim_time_scale": $scale},
  "seed": 5
}
EOF
code=0
"$KV_BIN/kvctl" run "$WORK/spec.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --out "$WORK/results" >"$WORK/kvctl.out" 2>&1 || code=$?
# Neither tier is pressed for KV cache (not_exercised, exit 0); users whose rounds pass ISL 4096
# make a comparison invalid with sessions_lost (exit 8, the same users in both tiers): neither
# matters to the search. Any other reason does.
reasons="$(grep -E '^  [a-z_]+: ' "$WORK/kvctl.out" | grep -v -e '^  sessions_lost: .*truncated by ISL' -e '^  note: ' -e '^  capacity: ' || true)"
{ [ "$code" = 0 ] || { [ "$code" = 8 ] && [ -z "$reasons" ]; }; } ||
  { cat "$WORK/kvctl.out" >&2; fail "kvctl run failed (exit $code): $reasons"; }
job_dir="$(ls -d "$WORK"/results/capacity-*)"
job="$job_dir/job.json"
out="$(cat "$WORK/kvctl.out")"

# --- the answer: each tier saturates past 4 users
for tier in GPU CPU_RAM; do
  read -r capacity low high finished < <(jq -r --arg t "$tier" \
    '.capacity.tiers[] | select(.tier == $t) | "\(.capacity) \(.low) \(.high) \(.finished)"' "$job")
  [ "$finished" = true ] && [ "$capacity" = 4 ] && [ "$low" -le 4 ] && [ "$high" -ge 4 ] ||
    fail "$tier: capacity $capacity [$low, $high] (finished $finished), the simulator saturates past 4: $(jq -c .capacity "$job")"
done
# The GPU tier's concurrencies in the order first probed (an undecided probe re-runs in place).
probes="$(jq -r '[.scenarios[] | select(.scenario.tier == "GPU") | .scenario.concurrency]
  | reduce .[] as $c ([]; if index([$c]) then . else . + [$c] end) | join(" ")' "$job")"
[ "$probes" = "2 4 8 6 5" ] || fail "GPU probed $probes, not a gallop then a bisection (2 4 8 6 5; an undecided probe repeated in place)"
headline="$(jq -r .capacity.headline "$job")"
[ "$headline" = "At TTFT p95 ≤ 1 s: GPU 4 users [4, 4], CPU_RAM 4 users [4, 4] (+0% [+0%, +0%])" ] ||
  fail "headline: $headline"

# --- the same answer everywhere, the headline first in kvctl run's output
first_result="$(grep -n -m1 -E '^(At TTFT|comparison c|  CONCURRENCY|CONCURRENCY)' <<<"$out")"
case "$first_result" in *":At TTFT p95"*) ;; *) fail "kvctl run's results do not open with the headline: $first_result";; esac
[ "$("$KV_BIN/kvctl" compare "$job_dir" --output json | jq -r .capacity.headline)" = "$headline" ] ||
  fail "kvctl compare --output json gives another headline"
expect_contains "$("$KV_BIN/kvctl" compare "$job_dir")" "$headline"
[ "$("$KV_BIN/kvctl" results "$job_dir" --output json | jq -r .capacity.headline)" = "$headline" ] ||
  fail "kvctl results --output json gives another headline"
"$KV_BIN/kvctl" report "$job_dir" --html "$WORK/report.html" > /dev/null || fail "kvctl report failed"
expect_contains "$(cat "$WORK/report.html")" "<p class=\"headline\">$headline</p>"

# --- every probe recomputed from its requests.jsonl
# The p95 of every successful request's TTFT in simulated seconds, the probe's repeats pooled
# (lib.sh's pooled_ttft_p95).
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 + 1e-6 * (b < 0 ? -b : b)) }'; }
checked=0
while read -r tier concurrency outcome value low high ids; do
  files=()
  for id in ${ids//,/ }; do files+=("$job_dir/$id/requests.jsonl"); done
  p95="$(pooled_ttft_p95 "$scale" "${files[@]}")"
  near "$value" "$p95" || fail "$tier c$concurrency: TTFT p95 $value s, its requests give $p95"
  awk -v l="$low" -v v="$value" -v h="$high" 'BEGIN { exit !(l <= v && v <= h) }' ||
    fail "$tier c$concurrency: TTFT p95 $value outside its interval [$low, $high]"
  expected=undecided
  awk -v h="$high" -v t="$target" 'BEGIN { exit !(h <= t) }' && expected=met
  awk -v l="$low" -v t="$target" 'BEGIN { exit !(l > t) }' && expected=missed
  [ "$outcome" = "$expected" ] ||
    fail "$tier c$concurrency: $outcome, but its interval [$low, $high] against $target s says $expected"
  checked=$((checked + 1))
done < <(jq -r '.capacity.tiers[] | .tier as $t | .probes[] |
  "\($t) \(.concurrency) \(.outcome) \(.measures[0].value_s) \(.measures[0].low_s) \(.measures[0].high_s) \(.scenario_ids | join(","))"' "$job")
[ "$checked" -ge 10 ] || fail "only $checked probes checked"
# The capacity is the largest met probe under the smallest miss, per tier.
for tier in GPU CPU_RAM; do
  derived="$(jq -r --arg t "$tier" '.capacity.tiers[] | select(.tier == $t) | .probes as $p
    | ([$p[] | select(.outcome == "missed") | .concurrency] | min) as $miss
    | [$p[] | select(.outcome == "met" and .concurrency < $miss) | .concurrency] | max' "$job")"
  [ "$derived" = 4 ] || fail "$tier: the probes' outcomes give a capacity of $derived"
done
echo "$headline"
echo "ok"
