#!/usr/bin/env bash
# Issue #15, sessions as they happened (kvctl run on the simulators): an ISL job where most
# virtual users are cut by the depth limit. result.json's session counts are what requests.jsonl
# and the runner's planned users (summary.json) give, recomputed here with jq; truncated_by_isl is
# counted, and the ceiling under ISL is reported and caps `achieved`.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is needed"
isl="${KV_TEST_ISL:-4000}"
cat > "$WORK/spec.json" <<SPEC
{"name": "isl-cut", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
 "engine": "sim", "tiers": ["GPU"], "replicas": 1,
 "dataset": {"code": "sammshen", "path": "tau2_airline_gpt-4.1_lmcache_format.jsonl"},
 "num_rounds": 5, "concurrency": [2], "sessions": 15, "isl": $isl, "osl": 16, "seed": 3,
 "engine_overrides": {"num_gpu_blocks": 4096, "sim_time_scale": 0.02}}
SPEC
"$KV_BIN/kvctl" run "$WORK/spec.json" --profiles "$KV_SOURCE/deploy/profiles" \
  --dataset-mirror "$KV_TEST_DATASETS" --out "$WORK/results" >"$WORK/kvctl.out" 2>&1 ||
  { cat "$WORK/kvctl.out" >&2; fail "kvctl run failed"; }
dir="$(ls -d "$WORK"/results/isl-cut-*/00-gpu-c2)"

# Each planned user's outcome from its records (DESIGN/README "Sessions as they happened").
expected="$(jq -n --slurpfile summary "$dir/summary.json" --slurpfile sent "$dir/requests.jsonl" '
  {complete: 0, incomplete: 0, error: 0, not_started: 0, truncated_by_isl: 0} as $zero
  | [$summary[0].planned_users[] | . as $u
     | [$sent[] | select(.user_id == $u.user_id)] as $mine
     | ([$mine[] | select(.error == null) | .round] | unique | length) as $ok
     | if ($mine | map(select(.error != null)) | length) > 0 then "error"
       elif $ok == $u.expected_rounds then "complete"
       elif $u.sendable_rounds < $u.expected_rounds and $ok == $u.sendable_rounds
         then "truncated_by_isl"
       elif ($mine | length) == 0 then "not_started"
       else "incomplete" end]
  | reduce .[] as $o ($zero; .[$o] += 1)
  | . + {total: ($summary[0].planned_users | length)}')"
actual="$(jq '.sessions | {complete: (.complete // 0), incomplete: (.incomplete // 0),
  error: (.error // 0), not_started: (.not_started // 0),
  truncated_by_isl: (.truncated_by_isl // 0), total: (.total // 0)}' "$dir/result.json")"
[ "$(echo "$expected" | jq -S .)" = "$(echo "$actual" | jq -S .)" ] ||
  fail "result.json sessions $actual, requests.jsonl + planned_users give $expected"

truncated="$(echo "$actual" | jq .truncated_by_isl)"
total="$(echo "$actual" | jq .total)"
[ "$truncated" -gt $((total / 2)) ] || fail "ISL $isl cut only $truncated of $total users"
ceiling="$(jq .sessions.dataset_ceiling "$dir/result.json")"
under="$(jq '.sessions.dataset_ceiling_under_isl // "absent"' "$dir/result.json")"
[ "$under" != absent ] || fail "no dataset_ceiling_under_isl in result.json"
[ "$under" -lt "$ceiling" ] || fail "ceiling under ISL $under is not below the ceiling $ceiling"
[ "$under" -eq "$(jq .dataset_ceiling_under_isl "$dir/summary.json")" ] ||
  fail "result.json and summary.json disagree on the ceiling under ISL"
[ "$(jq .sessions.achieved "$dir/result.json")" -eq "$under" ] ||
  fail "achieved is not min(requested 15, ceiling $ceiling, under ISL $under)"
# The ISL ended users without sending the round over it: every prompt sent fits.
[ "$(jq -s --argjson isl "$isl" '[.[] | select(.prompt_tokens > $isl)] | length' \
  "$dir/requests.jsonl")" -eq 0 ] || fail "a prompt over ISL was sent"
echo "PASS ($truncated of $total users truncated by ISL $isl; ceiling $ceiling, under ISL $under)"
