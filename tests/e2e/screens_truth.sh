#!/usr/bin/env bash
# What the screens say is true, each on a variant of the demo spec run end to end on
# the simulators (real Caddy, real processes), checked against the raw files:
#  1. one scrape does not decide "valid": with a scrape every second, the GPU tier's own prefix
#     cache served every reusable token -> c2 not_exercised, whatever one scrape of one replica
#     read (a peak of 95% or more is shown as "(one scrape: not deciding)");
#  3. the KV usage mean rests on the in-replay scrapes before the runner's last response:
#     recomputed from samples.jsonl up to result.json's engine.kv_cache_usage_until_s, with the
#     scrape count beside a mean of fewer than 5 in `kvctl results`;
#  8. machine output carries the verdicts, spelled as job.json spells them, and --require-valid
#     exits 8 when a comparison is not exercised (a CI job learns that nothing was tested);
#  4. a GPU cache smaller than one prompt: `kvctl plan` and `kvctl run` warn before anything
#     runs; every request fails, so each scenario FAILED with its first error, which `kvctl
#     results` and the job's validity show; kvctl exits non-zero.
source "$(dirname "$0")/lib.sh"
# vLLM's usage stats land under VLLM_CONFIG_ROOT unless the replicas' profile turns them off
# (a benchmark run sends nothing home): every run below must leave this folder without a
# usage_stats.json.
export VLLM_CONFIG_ROOT="$WORK/vllm-config"
kvctl="$KV_BIN/kvctl"
demo="$KV_SOURCE/deploy/examples/demo-sim.json"

# --- 1 and 3. A scrape every second, concurrency 2, GPU and CPU_RAM.
run_demo_variant scraped '.concurrency = [2] | .tiers = ["GPU", "CPU_RAM"]
  | .sampling = {"period_s": 1, "rate_window_s": 20}'
out="$(cat "$WORK/scraped.out")"
exit_ok "$(cat "$WORK/scraped.code")" "$out" || { cat "$WORK/scraped.err" >&2; fail "scraped: kvctl run exited $(cat "$WORK/scraped.code")"; }
dir="$(cat "$WORK/scraped.dir")"
gpu="$dir/00-gpu-c2"
expect_verdict "$out" c2 not_exercised
expect_contains "$out" "gpu_never_ran_short: the GPU tier never ran short of KV cache (its own prefix cache served"
# The highest in-replay scrape of any GPU replica: shown, and not deciding, when it read full.
peak="$(jq -r '.engine.kv_cache_usage_max' "$gpu/result.json")"
if awk -v p="$peak" 'BEGIN { exit !(p >= 0.95) }'; then
  expect_contains "$out" "(one scrape: not deciding)"
fi
# 3. The mean over the periodic scrapes after "before" and up to the last response the agent saw,
# of the replicas' mean at each.
until_s="$(jq -r '.engine.kv_cache_usage_until_s' "$gpu/result.json")"
[ "$until_s" != null ] || fail "scraped: result.json has no engine.kv_cache_usage_until_s"
read -r mean count < <(jq -rs --argjson until "$until_s" '
  (map(.kind) | rindex("before")) as $b
  | [.[$b:][] | select(.source | startswith("replica-"))] as $s
  | ([$s[] | select(.kind == "after")][0].t_s) as $after
  | [$s[] | select(.kind == "periodic" and .t_s <= $until and .t_s <= $after
                   and .values["vllm:kv_cache_usage_perc"] != null)]
  | group_by(.t_s) | map(map(.values["vllm:kv_cache_usage_perc"]) | add / length)
  | "\(add / length) \(length)"' "$gpu/samples.jsonl")
reported="$(jq -r '"\(.engine.kv_cache_usage_mean) \(.engine.kv_cache_usage_scrapes)"' "$gpu/result.json")"
awk -v m="$mean" -v r="${reported% *}" 'BEGIN { d = m - r; exit !(d < 1e-9 && d > -1e-9) }' ||
  fail "scraped: KV usage mean $reported (mean, scrapes) in result.json, $mean over $count scrapes recomputed from samples.jsonl"
[ "${reported#* }" = "$count" ] || fail "scraped: result.json counts ${reported#* } scrapes, samples.jsonl $count"
# The KV usage series the report draws is those scrapes, not the idle ones around the replay.
[ "$(jq '[.series[] | select(.name == "kv_cache_usage") | .t_s[]] | length' "$gpu/result.json")" = "$count" ] ||
  fail "scraped: the kv_cache_usage series is not the $count in-replay scrapes"
late="$(jq -s --argjson until "$until_s" '[.[] | select(.kind == "periodic" and .t_s > $until)] | length' "$gpu/samples.jsonl")"
echo "scraped: GPU KV usage mean over $count scrapes up to ${until_s} s; $late periodic scrape(s) after the last response left out"

# 8. The verdict in every machine output, one spelling; --require-valid fails a not-exercised run.
job_verdict="$(jq -r '.validity[] | select(.comparison_group == "c2") | .verdict' "$dir/job.json")"
[ "$job_verdict" = VERDICT_NOT_EXERCISED ] || fail "scraped: job.json says $job_verdict"
[ "$("$kvctl" results "$dir" --output json | jq -r '[.[].verdict] | unique | join(",")')" = "$job_verdict" ] ||
  fail "scraped: results --output json does not carry job.json's verdict"
"$kvctl" results "$dir" --output csv > "$WORK/scraped.csv"
[ "$(python3 -c 'import csv, sys; print(",".join(sorted({r["verdict"] for r in csv.DictReader(open(sys.argv[1]))})))' "$WORK/scraped.csv")" = "$job_verdict" ] ||
  fail "scraped: results --output csv does not carry job.json's verdict"
[ "$("$kvctl" compare "$dir" --output json | jq -r '.[0].verdict')" = "$job_verdict" ] ||
  fail "scraped: compare --output json spells the verdict otherwise than job.json"
code=0
"$kvctl" results "$dir" --require-valid > /dev/null 2> "$WORK/gate.err" || code=$?
[ "$code" = 8 ] || fail "scraped: results --require-valid exited $code on a not-exercised comparison"
expect_contains "$(cat "$WORK/gate.err")" "comparison c2 is not exercised"

# No replica reported usage stats (the profiles set VLLM_NO_USAGE_STATS and DO_NOT_TRACK).
[ ! -e "$VLLM_CONFIG_ROOT/usage_stats.json" ] ||
  fail "a replica wrote vLLM usage stats: $(head -c 300 "$VLLM_CONFIG_ROOT/usage_stats.json")"
# ...which kvsim-vllm, as vLLM, does write when nothing turns them off.
env -u VLLM_NO_USAGE_STATS -u DO_NOT_TRACK -u VLLM_DO_NOT_TRACK VLLM_CONFIG_ROOT="$WORK/tracked" \
  "$KV_BIN/kvsim-vllm" serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1 --port 0 \
  --sim-load-seconds 0 2>"$WORK/tracked.log" &
PIDS+=($!)
wait_until 20 test -s "$WORK/tracked/usage_stats.json" ||
  fail "kvsim-vllm with usage stats on wrote no usage_stats.json: $(tail -3 "$WORK/tracked.log")"
kill -TERM "${PIDS[-1]}"

# --- 4. A GPU KV cache smaller than one prompt.
# (The variation by --set KEY=VALUE, the demo file untouched.)
plan="$("$kvctl" plan "$demo" --set name=tiny --set 'concurrency=[2]' --set 'tiers=["GPU", "CPU_RAM"]' \
  --set engine_overrides.num_gpu_blocks=64)"
expect_contains "$plan" "job tiny: 2 scenarios"
expect_contains "$plan" "warning: num_gpu_blocks 64: the largest prompt ("
expect_contains "$plan" "and one replica has 64: every request that large fails"
run_demo_variant tiny '.concurrency = [2] | .tiers = ["GPU", "CPU_RAM"] | .engine_overrides.num_gpu_blocks = 64'
code="$(cat "$WORK/tiny.code")"
[ "$code" != 0 ] || fail "tiny: kvctl run exited 0 with every request failed"
expect_contains "$(cat "$WORK/tiny.err")" "warning: num_gpu_blocks 64: the largest prompt ("
dir="$(cat "$WORK/tiny.dir")"
for scenario in 00-gpu-c2 01-cpu-ram-c2; do
  first="$(jq -rs '[.[] | select(.error != null)] | sort_by(.sent_s) | .[0].error' "$dir/$scenario/requests.jsonl")"
  failed="$(jq -s '[.[] | select(.error != null)] | length' "$dir/$scenario/requests.jsonl")"
  ok="$(jq -s '[.[] | select(.error == null)] | length' "$dir/$scenario/requests.jsonl")"
  [ "$ok" = 0 ] && [ "$failed" -gt 0 ] || fail "tiny: $scenario has $ok successful and $failed failed requests"
  state="$(jq -r --arg s "$scenario" '.scenarios[] | select(.scenario.scenario_id == $s) | "\(.state) \(.error)"' "$dir/job.json")"
  expect_contains "$state" "SCENARIO_STATE_FAILED no request succeeded: all $failed requests failed; the first: $first"
  [ "$(jq -r .sessions.first_error "$dir/$scenario/result.json")" = "$first" ] ||
    fail "tiny: $scenario result.json's first_error is not requests.jsonl's first error ($first)"
done
results="$("$kvctl" results "$dir")"
expect_contains "$results" "failed: no request succeeded: all "
expect_contains "$(cat "$WORK/tiny.out")" "comparison c2: invalid"
expect_contains "$(cat "$WORK/tiny.out")" "no request succeeded"
echo "PASS"
