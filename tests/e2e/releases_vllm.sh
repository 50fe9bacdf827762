#!/usr/bin/env bash
# Releases, the engine side, through real processes (kvsim-vllm imitating vLLM releases behind
# its --sim-* flags):
#   2. a hybrid SSM model cannot start with --disable-hybrid-kv-cache-manager (vLLM fails at
#      start-up on every tier): refused up front, naming why, before any process starts;
#   3. the connector's module path: a profile setting, rendered, and the class each replica
#      logged recorded in result.json and the report;
#   7. vLLM's two ways of counting external queries, told apart from the counters and recomputed
#      here from samples.jsonl; a fleet whose agents run different vLLM releases gives an invalid
#      comparison (mixed_versions) naming both, in kvctl results, results --output json and the
#      report, instead of silently comparing them.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
hybrid_model="ibm-ai-platform/Bamba-9B-v2"

# small NAME FILTER: the demo's spec, GPU + CPU_RAM at concurrency 4, 8 sessions, FILTER applied.
small() {
  jq --arg name "$1" ".name = \$name | .tiers = [\"GPU\", \"CPU_RAM\"] | .concurrency = [4]
     | .sessions = 8 | .engine_overrides.sim_time_scale = 0.05 | $2" \
    "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/$1.json"
}
# profiles_with NAME JQ: a copy of the shipped profiles whose sim-vllm is changed by JQ.
profiles_with() {
  cp -r "$KV_SOURCE/deploy/profiles" "$WORK/$1-profiles"
  jq "$2" "$KV_SOURCE/deploy/profiles/sim-vllm.json" > "$WORK/$1-profiles/sim-vllm.json"
}

# --- 2: a hybrid SSM model is refused before anything starts
small hybrid ".model = \"$hybrid_model\""
code=0
started=$SECONDS
"$kvctl" run "$WORK/hybrid.json" --out "$WORK/hybrid" > "$WORK/hybrid.out" 2>&1 || code=$?
out="$(cat "$WORK/hybrid.out")"
[ "$code" != 0 ] || fail "a hybrid SSM model ran: $out"
expect_contains "$out" "is a hybrid SSM model (architecture BambaForCausalLM"
expect_contains "$out" "--disable-hybrid-kv-cache-manager"
dir="$(ls -d "$WORK/hybrid/hybrid"-*)"
for scenario in "$dir"/0*; do
  [ ! -e "$scenario/logs/replica-0.log" ] ||
    fail "$(basename "$scenario") started a replica for a model it refuses: $(tail -3 "$scenario/logs/replica-0.log")"
done
[ $((SECONDS - started)) -lt 30 ] || fail "the refusal took $((SECONDS - started)) s"

# --- 3 and 7 (one release): the connector's module path, and the whole-prompt counting
module="lmcache.integration.vllm.lmcache_mp_connector"
profiles_with older ".kv_connector_module_path = \"$module\"
  | .extra_args += [\"--sim-vllm-version=0.12.0\", \"--sim-external-counting=whole-prompt\"]"
small older '.'
code=0
"$kvctl" run "$WORK/older.json" --out "$WORK/older" --profiles "$WORK/older-profiles" \
  > "$WORK/older.out" 2> "$WORK/older.err" || code=$?
exit_ok "$code" "$(cat "$WORK/older.out")" || fail "kvctl run exited $code: $(cat "$WORK/older.err")"
dir="$(ls -d "$WORK/older/older"-*)"
cpu="$dir/01-cpu-ram-c4"
[ "$(jq -c '.kv_connector' "$cpu/result.json")" = \
  "{\"class_name\":\"LMCacheMPConnector\",\"module_path\":\"$module\",\"loaded_from\":\"module_path\",\"replicas_logged\":2}" ] ||
  fail "kv_connector: $(jq -c .kv_connector "$cpu/result.json")"
[ "$(jq -r '.kv_connector // "none"' "$dir/00-gpu-c4/result.json")" = none ] ||
  fail "the GPU tier records a connector"
[ "$(jq -r '.versions[] | select(.component == "vllm") | "\(.version) \(.simulated)"' "$cpu/result.json")" = "0.12.0 true" ] ||
  fail "versions: $(jq -c .versions "$cpu/result.json")"
# whole_prompt: the external queries' increase equals the prefix-cache queries' over the replay.
# Each replica's increase from its "before" to its "after" scrape, summed over the replicas.
read -r queries hits external < <(jq -rs '
  def d($s; $m): ($s | map(select(.kind == "after")) | last | .values[$m] // 0)
                 - ($s | map(select(.kind == "before")) | first | .values[$m] // 0);
  [group_by(.source)[] | select(.[0].source | startswith("replica-"))] as $replicas
  | [([$replicas[] | d(.; "vllm:prefix_cache_queries_total")] | add),
     ([$replicas[] | d(.; "vllm:prefix_cache_hits_total")] | add),
     ([$replicas[] | d(.; "vllm:external_prefix_cache_queries_total")] | add)] | @tsv' "$cpu/samples.jsonl")
[ "$hits" != 0 ] || fail "no local prefix-cache hit to tell the countings apart"
[ "$external" = "$queries" ] || fail "whole-prompt counting: external queries $external, prompt queries $queries"
[ "$(jq -r .engine.external_query_counting "$cpu/result.json")" = whole_prompt ] ||
  fail "external_query_counting: $(jq -r .engine.external_query_counting "$cpu/result.json")"
[ "$(jq -r .engine.external_query_tokens "$cpu/result.json")" = "$external" ] ||
  fail "external_query_tokens differs from the raw counters' $external"
"$kvctl" report "$dir" --html "$WORK/older.html" > /dev/null
grep -q "<h2>What ran</h2>" "$WORK/older.html" || fail "the report has no What ran section"
grep -q "LMCacheMPConnector from module $module" "$WORK/older.html" || fail "the report does not name the connector"
grep -q "whole_prompt" "$WORK/older.html" || fail "the report does not say how external queries were counted"

# --- 7 (a fleet): one agent on vLLM 0.12.0, one on the current release. The scheduler's best fit
# puts GPU on the first agent by id and CPU_RAM on the other (both idle, neither has an NVMe dir).
start_controller '"heartbeat_timeout_s": 30'
start_sim_agent a-older "$WORK/older-profiles"
start_sim_agent b-current
small fleet '.'
job="$("$kvctl" submit "$WORK/fleet.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "kvctl submit printed no job id"
status_of() { "$kvctl" status "$job" --output json; }
ended() { case "$(status_of | jq -r '.state')" in JOB_STATE_RUNNING | JOB_STATE_QUEUED) return 1;; esac; }
wait_until 180 ended || { status_of >&2; fail "the job did not end"; }
[ "$(status_of | jq -r '[.scenarios[] | .agent_id] | join(",")')" = "a-older,b-current" ] ||
  fail "placement: $(status_of | jq -c '[.scenarios[] | {tier: .scenario.tier, agent_id}]')"
results="$("$kvctl" results "$job" 2>&1 || true)"
expect_contains "$results" "mixed_versions: vllm differs between the tiers: 0.12.0 (GPU) vs 0.33.0 (CPU_RAM)"
expect_contains "$results" "versions: vllm 0.12.0 (simulated) (GPU) vs 0.33.0 (simulated) (CPU_RAM)"
"$kvctl" results "$job" --output json > "$WORK/fleet.json.out"
[ "$(jq -r '[.[] | .verdict] | unique | join(",")' "$WORK/fleet.json.out")" = VERDICT_INVALID ] ||
  fail "results --output json verdicts: $(jq -c '[.[] | .verdict]' "$WORK/fleet.json.out")"
[ "$(jq -r '[.[] | .result.versions[] | select(.component == "vllm") | .version] | join(",")' "$WORK/fleet.json.out")" = "0.12.0,0.33.0" ] ||
  fail "results --output json versions: $(jq -c '[.[] | .result.versions]' "$WORK/fleet.json.out")"
"$kvctl" report "$job" --html "$WORK/fleet.html" > /dev/null
grep -q 'class="mixed"' "$WORK/fleet.html" || fail "the report does not mark the mixed versions"
echo "PASS"
