#!/usr/bin/env bash
# The verdicts a careful engineer would give, each on a single-change variant of the
# demo spec run end to end on the simulators (real Caddy, real processes), with the evidence each
# verdict names recomputed from the raw files (requests.jsonl, samples.jsonl, summary.json):
#  1. a GPU tier with room for everything, 2 replicas: the offload tiers' external hits are
#     cross-replica sharing, not offload -> not_exercised (gpu_never_ran_short);
#  2. one replica at concurrency 2 with room for two users: the GPU tier got all the reuse,
#     offload served nothing -> not_exercised;
#  3. ISL 4096: only the users that fit run, fewer than asked -> invalid, the session counts
#     named (and equal to the raw ones);
#  4. osl 0 replays the recorded lengths with ignore_eos: every tier does the same work; a
#     doctored result with 10% fewer output tokens makes the group invalid (work_differs).
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
demo="$KV_SOURCE/deploy/examples/demo-sim.json"

# run_variant NAME JQ_FILTER [EXIT]: the demo spec changed by JQ_FILTER, run into $WORK/NAME,
# exiting EXIT (default 0; 8 when a comparison is invalid; lib.sh exit_ok: or 8 on a saturated
# host, the evidence checked all the same); prints kvctl's output and leaves the
# job folder's path in $WORK/NAME.dir.
run_variant() {
  run_demo_variant "$1" "$2"
  exit_ok "$(cat "$WORK/$1.code")" "$(cat "$WORK/$1.out")" "${3:-0}" ||
    { cat "$WORK/$1.err" >&2; cat "$WORK/$1.out" >&2; fail "kvctl run $1 exited $(cat "$WORK/$1.code"), want ${3:-0}"; }
  cat "$WORK/$1.out"
}

# 1234567 -> 1,234,567 (as the verdicts write numbers).
commas() { echo "$1" | rev | sed -E 's/([0-9]{3})/\1,/g; s/,$//' | rev; }

# The successful requests' sum of FIELD in a requests.jsonl.
sum_field() { jq -s "[.[] | select(.error == null) | .$2 // 0] | add // 0" "$1"; }

# after - before of a replica counter in samples.jsonl, summed over replicas.
counter_delta() {
  jq -s --arg m "$2" '[.[] | select(.source | startswith("replica-"))] as $s
    | ([$s[] | select(.kind == "after") | .values[$m] // 0] | add // 0)
    - ([$s[] | select(.kind == "before") | .values[$m] // 0] | add // 0)' "$1"
}

# --- 1. room for everything on 2 replicas
out="$(run_variant roomy '.concurrency = [2] | .tiers = ["GPU", "CPU_RAM"]
  | .engine_overrides.num_gpu_blocks = 200000')"
dir="$(cat "$WORK/roomy.dir")"
expect_verdict "$out" c2 not_exercised
expect_contains "$out" "gpu_never_ran_short: the GPU tier never ran short of KV cache (its own prefix cache served"
expect_contains "$out" "note routing_differs: CPU_RAM ran least_conn over 2 replicas"
gpu="$dir/00-gpu-c2"
# The GPU tier's reuse, per request (agent/results/same_user_reuse.h): the prompt's leading chunk
# keys (prompts.jsonl) found among its user's earlier rounds' keys x 256 = reusable; the cached
# tokens (requests.jsonl) capped at that = served from its own cache.
reuse="$(jq -n --slurpfile p "$gpu/prompts.jsonl" --slurpfile r "$gpu/requests.jsonl" '
  ($p | group_by(.user_id) | map(sort_by(.round) | . as $rounds
    | reduce range(0; length) as $i ({seen: {}, out: []};
        . as $state | $rounds[$i].chunk_keys as $k
        | ([range(0; $k | length) | select($state.seen[$k[.]] | not)] | first // ($k | length)) as $n
        | .out += [{key: "\($rounds[$i].user_id)/\($rounds[$i].round)", value: ($n * 256)}]
        | .seen += ([$k[] | {(.): true}] | add // {}))
    | .out) | add | from_entries) as $reusable
  | [$r[] | select(.error == null) | $reusable["\(.user_id)/\(.round)"] as $u | select($u != null)
     | {u: $u, c: ([.cached_tokens // 0, $u] | min)}]
  | "\(map(.c) | add) \(map(.u) | add)"')"
read -r hits reusable <<< "$(echo "$reuse" | tr -d '"')"
expect_contains "$out" "its users' earlier rounds had computed ($(commas "$hits") of $(commas "$reusable"))"
awk -v h="$hits" -v r="$reusable" 'BEGIN { exit !(r > 0 && h >= 0.95 * r) }' ||
  fail "roomy: GPU cached $hits of $reusable reusable tokens: it did run short"
served="$(counter_delta "$dir/01-cpu-ram-c2/samples.jsonl" "vllm:external_prefix_cache_hits_total")"
[ "$served" -gt 0 ] || fail "roomy: CPU_RAM served no external hits ($served): the offload never served, so this is not the roomy case"
expect_contains "$out" "what offload served (CPU_RAM served $(commas "$served") prompt tokens"

# --- 2. one replica at concurrency 2
# Room for every context (the seed decides which two users overlap: with 1,024 blocks, 16k
# tokens, two 11k-token prompts together evict, and then offload does serve).
out="$(run_variant one-replica '.replicas = 1 | .concurrency = [2]
  | .engine_overrides.num_gpu_blocks = 8192')"
dir="$(cat "$WORK/one-replica.dir")"
# The GPU tier may fill its blocks for a moment: whichever the GPU evidence says, offload served
# nothing.
expect_verdict "$out" c2 not_exercised
for scenario in 01-cpu-ram-c2 02-nvme-c2; do
  served="$(counter_delta "$dir/$scenario/samples.jsonl" "vllm:external_prefix_cache_hits_total")"
  [ "$served" -eq 0 ] || fail "one-replica: $scenario served $served external-hit tokens"
done
expect_contains "$out" "offload served nothing (CPU_RAM 0 external-hit tokens"

# --- 3. ISL 4096 with the default 32 sessions: only the users that fit run, none cut,
# fewer than asked for: invalid, naming the ceiling under ISL (ISL 2048 fits no user:
# refused at plan time, e2e.kvctl_plan).
out="$(run_variant isl '.replicas = 1 | .concurrency = [2] | .isl = 4096' 8)"
dir="$(cat "$WORK/isl.dir")"
expect_contains "$out" "comparison c2: invalid"
# An invalid comparison is not a success: exit 8, naming it.
expect_contains "$(cat "$WORK/isl.err")" "ended but comparison c2 is invalid (the verdict says why)"
expect_contains "$out" "sessions_below_requested: GPU, CPU_RAM, NVME: sessions 32 requested but only"
expect_contains "$out" "virtual users fit under ISL 4096"
for scenario in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2; do
  # Each planned user's outcome from the raw files: complete (every expected round ok),
  # truncated by ISL (fewer sendable rounds than expected, every sendable one ok), not started,
  # incomplete.
  raw="$(jq -n --slurpfile r "$dir/$scenario/requests.jsonl" --slurpfile s "$dir/$scenario/summary.json" '
    [$s[0].planned_users[] as $u
      | ([$r[] | select(.user_id == $u.user_id and .error == null)] | length) as $ok
      | if $ok == $u.expected_rounds then "complete"
        elif $u.sendable_rounds < $u.expected_rounds and $ok == $u.sendable_rounds then "truncated_by_isl"
        elif $ok == 0 then "not_started" else "incomplete" end]
    | {complete: map(select(. == "complete")) | length,
       truncated_by_isl: map(select(. == "truncated_by_isl")) | length,
       not_started: map(select(. == "not_started")) | length,
       incomplete: map(select(. == "incomplete")) | length}')"
  reported="$(jq '.sessions | {complete: (.complete // 0), truncated_by_isl: (.truncatedByIsl // .truncated_by_isl // 0),
    not_started: (.notStarted // .not_started // 0), incomplete: (.incomplete // 0)}' "$dir/$scenario/result.json")"
  [ "$(echo "$raw" | jq -S -c .)" = "$(echo "$reported" | jq -S -c .)" ] ||
    fail "isl: $scenario session counts $reported, the raw files give $raw"
  [ "$(echo "$raw" | jq .truncated_by_isl)" -eq 0 ] || fail "isl: $scenario: ISL 4096 cut a chosen user"
  under="$(jq .sessions.dataset_ceiling_under_isl "$dir/$scenario/result.json")"
  [ "$(echo "$raw" | jq .complete)" -eq "$under" ] && [ "$under" -lt 32 ] ||
    fail "isl: $scenario: $(echo "$raw" | jq .complete) complete, want every one of the $under that fit (< 32)"
done

# --- 4. osl 0: the recorded lengths, the same work in every tier
out="$(run_variant recorded '.osl = 0 | .concurrency = [2]')"
dir="$(cat "$WORK/recorded.dir")"
expected="$(sum_field "$dir/00-gpu-c2/requests.jsonl" output_tokens)"
for scenario in 00-gpu-c2 01-cpu-ram-c2 02-nvme-c2; do
  generated="$(sum_field "$dir/$scenario/requests.jsonl" output_tokens)"
  [ "$generated" -eq "$expected" ] ||
    fail "recorded: $scenario generated $generated output tokens, the GPU tier $expected"
  [ "$(jq .latency.output_tokens_total "$dir/$scenario/result.json" | tr -d '"')" -eq "$generated" ] ||
    fail "recorded: $scenario result.json output_tokens_total differs from requests.jsonl ($generated)"
done
case "$out" in *work_differs*) fail "recorded: equal work reported as differing: $out";; esac
# A doctored copy: CPU_RAM with 10% fewer output tokens is a group that did unequal work.
cp -r "$dir" "$WORK/doctored"
jq 'del(.validity)' "$dir/job.json" > "$WORK/doctored/job.json"
jq '.latency.output_tokens_total = ((.latency.output_tokens_total | tonumber) * 0.9 | floor | tostring)' \
  "$dir/01-cpu-ram-c2/result.json" > "$WORK/doctored/01-cpu-ram-c2/result.json"
doctored="$("$kvctl" results "$WORK/doctored")"
expect_contains "$doctored" "comparison c2: invalid"
expect_contains "$doctored" "work_differs: output tokens differ beyond ±1.0%: GPU $(commas "$expected"), CPU_RAM"
echo "PASS"
