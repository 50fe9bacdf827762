#!/usr/bin/env bash
# Request rows through the real processes, for the runs that used to lose them:
#  - a dataset whose session ids are 30 KB long: its 160 rows were one 4.8 MB chunk, over gRPC's
#    4 MB limit, refused on every reconnect (the agent re-registered, replayed and was cut off
#    again, forever; its scenario stayed running). Now rows are chunked by bytes and long text is
#    cut with a note of its length: the job succeeds, every row reaches the controller.
#  - a scenario cancelled mid-replay: its rows used to stay on the agent (0 at the controller);
#    now they are sent like any others, before its end.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
mkdir -p "$WORK/datasets"
cp "$KV_DEMO_DATASETS"/* "$WORK/datasets/"
jq '(.simulations |= map(.task_id = ("t" * 30000) + .task_id)) |
    (.tasks |= map(.id = ("t" * 30000) + .id))' \
  "$KV_DEMO_DATASETS/tau2_airline_gpt-4.1_results.json" > "$WORK/datasets/long-ids.json"
export KV_DEMO_DATASETS="$WORK/datasets"
start_controller '"heartbeat_timeout_s": 30'
start_sim_agent sim-a

# spec NAME JQ_FILTER: the demo, GPU only, changed by JQ_FILTER.
spec() {
  jq "$2 | .name = \"$1\" | .tiers = [\"GPU\"] | .replicas = 1" \
    "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/$1.json"
}

# --- Long session ids
spec long-ids '.dataset.path = "long-ids.json" | .concurrency = [16]'
job="$("$kvctl" submit "$WORK/long-ids.json" --output json | jq -r .job_id)"
timeout 120 "$kvctl" watch "$job" > "$WORK/long-ids.watch" 2>&1 || true  # never ended, before
state="$("$kvctl" status "$job" --output json | jq -r .state)"
[ "$state" = JOB_STATE_SUCCEEDED ] || fail "the long-id job ended $state: $(tail -5 "$WORK/long-ids.watch")"
"$kvctl" results "$job" --requests > "$WORK/long-ids.rows.jsonl"
on_disk="$(cat "$WORK"/sim-a/scenarios/"$job"/*/requests.jsonl | grep -c .)"
[ "$(grep -c . "$WORK/long-ids.rows.jsonl")" = "$on_disk" ] ||
  fail "$(grep -c . "$WORK/long-ids.rows.jsonl") rows at the controller, $on_disk on the agent"
# Each session id cut to 4,096 bytes with its length; the rest of the row as on the agent's disk.
python3 - "$WORK/long-ids.rows.jsonl" "$WORK"/sim-a/scenarios/"$job"/*/requests.jsonl <<'PY' ||
import json, sys
exported = [json.loads(l) for l in open(sys.argv[1])]
on_disk = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert len(exported) == len(on_disk) > 100, (len(exported), len(on_disk))
for row, disk in zip(exported, on_disk):
    assert len(disk["session_id"]) > 30000, len(disk["session_id"])
    assert row["session_id"] == disk["session_id"][:4096] + f"... ({len(disk['session_id'])} bytes)"
    for key in ["user_id", "round", "sent_s", "end_s", "ttft_s", "prompt_tokens", "output_tokens"]:
        assert row[key] == disk[key], (key, row[key], disk[key])
print(f"{len(exported)} rows with 30 KB session ids, each cut to 4096 bytes")
PY
  fail "the long-id rows differ from the agent's"
! grep -q "re-register\|registered again" "$WORK/sim-a.log" || fail "the agent re-registered: $(grep -m3 regist "$WORK/sim-a.log")"

# --- A scenario cancelled mid-replay
spec cancelled '.concurrency = [2] | .num_rounds = 5 | .sessions = 32 | .engine_overrides.sim_time_scale = 1'
job="$("$kvctl" submit "$WORK/cancelled.json" --output json | jq -r .job_id)"
replaying() {
  [ "$("$kvctl" status "$job" --output json | jq '[.scenarios[].progress.requests_done // 0 | tonumber] | add')" -ge 10 ]
}
wait_until 120 replaying || fail "the job did not replay: $("$kvctl" status "$job")"
"$kvctl" cancel "$job" > /dev/null
cancelled() { [ "$("$kvctl" status "$job" --output json | jq -r .state)" = JOB_STATE_CANCELLED ]; }
wait_until 60 cancelled || fail "the job was not cancelled: $("$kvctl" status "$job")"
ended() { [ "$("$kvctl" status "$job" --output json | jq -r '.scenarios[0].state')" = SCENARIO_STATE_CANCELLED ]; }
wait_until 60 ended || fail "the scenario did not end cancelled: $("$kvctl" status "$job")"
# The controller records CANCELLED at once; the agent then stops its engines and sends the rows
# its runner wrote, so they arrive a moment later (before, never).
all_rows_in() {
  local on_agent at_controller
  on_agent="$(cat "$WORK"/sim-a/scenarios/"$job"/*/requests.jsonl 2>/dev/null | grep -c .)"
  at_controller="$("$kvctl" results "$job" --requests | grep -c .)"
  [ "$on_agent" -gt 0 ] && [ "$at_controller" = "$on_agent" ]
}
wait_until 60 all_rows_in || fail "the cancelled scenario's rows did not all reach the controller"
rows="$(expect_rows_match_agents "$job")"
[ "$rows" -ge 10 ] || fail "only $rows rows of the cancelled scenario at the controller"
echo "PASS: long session ids delivered cut; $rows rows of a cancelled scenario at the controller"
