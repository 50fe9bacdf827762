#!/usr/bin/env bash
# Equal work through the real binaries (kvctl run: the simulators, kv-runner, the agent's state
# machine): a small osl-0 job on all three tiers.
# (a) Equal work: every request asks for its round's recorded output length with ignore_eos, so
#     each tier's Σ output_tokens (requests.jsonl) is the Σ of the recorded lengths of the rounds
#     it sent (recomputed here from the dataset's rows with jq), the same on every tier.
# (c) The warm-up gate: the "before" scrape follows kv-runner's 4 warm-up requests, so the
#     replicas' prefill counts (before → after in samples.jsonl) grew by exactly the requests in
#     requests.jsonl.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is needed"
dataset="$KV_TEST_DATASETS/tau2_airline_gpt-4.1_lmcache_format.jsonl"
cat > "$WORK/spec.json" <<SPEC
{"name": "equal-work", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
 "engine": "sim", "tiers": ["GPU", "CPU_RAM", "NVME"], "replicas": 1,
 "dataset": {"code": "sammshen", "path": "tau2_airline_gpt-4.1_lmcache_format.jsonl"},
 "num_rounds": 5, "concurrency": [2], "sessions": 4, "osl": 0, "seed": 3,
 "sampling": {"period_s": 4, "rate_window_s": 60},
 "engine_overrides": {"num_gpu_blocks": 1024, "sim_time_scale": 0.02}}
SPEC
code=0
"$KV_BIN/kvctl" run "$WORK/spec.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --dataset-mirror "$KV_TEST_DATASETS" --out "$WORK/results" >"$WORK/kvctl.out" 2>&1 || code=$?
exit_ok "$code" "$(cat "$WORK/kvctl.out")" || { cat "$WORK/kvctl.out" >&2; fail "kvctl run failed"; }
job_dir="$(ls -d "$WORK"/results/equal-work-*)"

# The recorded output length of each (user_id, round) sent: user "SSSS-CC" is chunk CC (5 rounds)
# of the dataset's session number SSSS (sessions in order of first appearance).
recorded_sum() {
  jq -n --slurpfile rows "$dataset" --slurpfile sent "$1" '
    ($rows | reduce .[] as $r ({order: [], by: {}};
        if .by[$r.session_id] == null then .order += [$r.session_id] else . end
        | .by[$r.session_id] += [$r.output_length])) as $d
    | [$sent[] | (.user_id | split("-") | map(tonumber)) as [$s, $c]
       | $d.by[$d.order[$s]][$c * 5 + .round - 1]] | add'
}
# Σ over replicas of a counter's after - before in samples.jsonl.
counter_delta() {
  jq -s --arg key "$2" '
    def total(kind): [.[] | select(.kind == kind and (.source | startswith("replica-")))
                      | .values[$key] // 0] | add // 0;
    total("after") - total("before")' "$1"
}

first_sum=""
for scenario in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2; do
  requests="$job_dir/$scenario/requests.jsonl"
  sent="$(wc -l < "$requests")"
  [ "$sent" -gt 0 ] || fail "$scenario: no requests"
  [ "$(jq -s '[.[] | select(.error != null)] | length' "$requests")" -eq 0 ] ||
    fail "$scenario: failed requests"
  generated="$(jq -s '[.[].output_tokens] | add' "$requests")"
  recorded="$(recorded_sum "$requests")"
  [ "$generated" -eq "$recorded" ] ||
    fail "$scenario: generated $generated output tokens, the rounds sent recorded $recorded"
  [ "$(jq ".latency.output_tokens_total | tonumber" "$job_dir/$scenario/result.json")" -eq "$generated" ] ||
    fail "$scenario: result.json output_tokens_total is not Σ requests.jsonl output_tokens"
  first_sum="${first_sum:-$generated}"
  [ "$generated" -eq "$first_sum" ] || fail "$scenario: $generated output tokens, GPU $first_sum"

  prefills="$(counter_delta "$job_dir/$scenario/samples.jsonl" \
    'vllm:request_prefill_time_seconds_count')"
  [ "$prefills" -eq "$sent" ] ||
    fail "$scenario: the replicas prefilled $prefills requests between before and after, requests.jsonl has $sent"
done
echo "PASS (each tier generated $first_sum tokens)"
