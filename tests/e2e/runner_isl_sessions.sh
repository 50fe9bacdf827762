#!/usr/bin/env bash
# Sessions under an ISL, kvctl run on the simulators:
#  1. the users are chosen among those every prompt of which fits the ISL, so none is cut:
#     result.json's session counts are what requests.jsonl and the runner's planned users
#     (summary.json) give, recomputed here with jq; truncated_by_isl is 0, every prompt sent fits;
#     the ceiling under ISL is reported, caps `achieved`, and is what `kvctl plan` counted;
#  2. `kvctl plan`'s WILL_RUN as `sessions`, GPU against CPU_RAM on a GPU cache they outgrow:
#     exactly those users run in both tiers, all complete, and the comparison is valid.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is needed"
isl="${KV_TEST_ISL:-4000}"
kvctl="$KV_BIN/kvctl"
spec_of() {  # NAME SESSIONS TIERS BLOCKS
  cat <<SPEC
{"name": "$1", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
 "engine": "sim", "tiers": $3, "replicas": 1,
 "dataset": {"code": "sammshen", "path": "tau2_airline_gpt-4.1_lmcache_format.jsonl"},
 "num_rounds": 5, "concurrency": [4], "sessions": $2, "isl": $isl, "osl": 16, "seed": 3,
 "engine_overrides": {"num_gpu_blocks": $4, "sim_time_scale": 0.02}}
SPEC
}
run() {  # NAME: kvctl run of $WORK/NAME.json into $WORK/NAME; prints its output
  local code=0
  "$kvctl" run "$WORK/$1.json" --profiles "$KV_SOURCE/deploy/profiles" \
    --dataset-mirror "$KV_TEST_DATASETS" --out "$WORK/$1" >"$WORK/$1.out" 2>&1 || code=$?
  exit_ok "$code" "$(cat "$WORK/$1.out")" || { cat "$WORK/$1.out" >&2; fail "kvctl run $1 exited $code"; }
  cat "$WORK/$1.out"
}

# --- 1. 15 sessions asked for, of a dataset most of whose users some round would cut.
spec_of isl-cut 15 '["GPU"]' 4096 > "$WORK/isl-cut.json"
plan_under="$("$kvctl" plan "$WORK/isl-cut.json" --dataset-mirror "$KV_TEST_DATASETS" --output json |
  jq .dataset_ceiling.virtual_users_under_isl)"
run isl-cut >/dev/null
dir="$(ls -d "$WORK"/isl-cut/isl-cut-*/00-gpu-c4)"

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

[ "$(echo "$actual" | jq .truncated_by_isl)" = 0 ] || fail "ISL $isl cut users that were chosen: $actual"
[ "$(jq '[.planned_users[] | select(.sendable_rounds < .expected_rounds)] | length' "$dir/summary.json")" = 0 ] ||
  fail "a chosen user has a round over ISL $isl"
ceiling="$(jq .sessions.dataset_ceiling "$dir/result.json")"
under="$(jq '.sessions.dataset_ceiling_under_isl // "absent"' "$dir/result.json")"
[ "$under" != absent ] || fail "no dataset_ceiling_under_isl in result.json"
[ "$under" -lt "$ceiling" ] || fail "ceiling under ISL $under is not below the ceiling $ceiling: the case is not tested"
[ "$under" -eq "$plan_under" ] || fail "kvctl plan counted $plan_under users within ISL, the runner $under"
[ "$under" -eq "$(jq .dataset_ceiling_under_isl "$dir/summary.json")" ] ||
  fail "result.json and summary.json disagree on the ceiling under ISL"
total="$(echo "$actual" | jq .total)"
want=$((under < 15 ? under : 15))
[ "$total" -eq "$want" ] && [ "$(jq .sessions.achieved "$dir/result.json")" -eq "$want" ] ||
  fail "ran $total users, achieved $(jq .sessions.achieved "$dir/result.json"): want min(15, under ISL $under) = $want"
expect_contains "$(jq -r .sessions.selection "$dir/result.json")" "those with every prompt within isl $isl"
[ "$(jq -s --argjson isl "$isl" '[.[] | select(.prompt_tokens > $isl)] | length' \
  "$dir/requests.jsonl")" -eq 0 ] || fail "a prompt over ISL was sent"

# --- 2. WILL_RUN as sessions, GPU against CPU_RAM with a GPU cache the users outgrow.
spec_of isl-fair 15 '["GPU", "CPU_RAM"]' 260 > "$WORK/isl-fair.json"
will_run="$("$kvctl" plan "$WORK/isl-fair.json" --dataset-mirror "$KV_TEST_DATASETS" --output json |
  jq '.scenarios[0].sessions_to_run')"
jq --argjson n "$will_run" '.sessions = $n' "$WORK/isl-fair.json" > "$WORK/isl-fair.tmp" &&
  mv "$WORK/isl-fair.tmp" "$WORK/isl-fair.json"
out="$(run isl-fair)"
fair="$(ls -d "$WORK"/isl-fair/isl-fair-*)"
for scenario in 00-gpu-c4 01-cpu-ram-c4; do
  [ "$(jq .sessions.complete "$fair/$scenario/result.json")" -eq "$will_run" ] ||
    fail "isl-fair $scenario: $(jq -c .sessions "$fair/$scenario/result.json"), want all $will_run complete"
done
[ "$(jq -r '[.planned_users[].user_id] | sort | join(",")' "$fair/00-gpu-c4/summary.json")" = \
  "$(jq -r '[.planned_users[].user_id] | sort | join(",")' "$fair/01-cpu-ram-c4/summary.json")" ] ||
  fail "isl-fair: the tiers ran different users"
expect_verdict "$out" c4 valid
echo "PASS (ISL $isl: $total of $ceiling users chosen among the $under that fit; WILL_RUN $will_run valid)"
