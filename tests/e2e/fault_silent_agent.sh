#!/usr/bin/env bash
# A silent agent through the real processes: a kv-agent goes silent past the controller's
# heartbeat timeout mid-replay (SIGSTOP: a hung host or a partition looks the same) and comes back
# (SIGCONT) still running attempt 1, which was requeued meanwhile and goes back to the same agent
# as attempt 2. Before attempts were fenced, attempt 1's late "cancelled" ended the job CANCELLED
# (or its success was stored while attempt 2 ran on as a phantom and wrote over its files). Now:
# attempt 1 is stopped, its late events are stored but move nothing (counted as stale), the job
# SUCCEEDS with attempt 2's result, which equals attempt 2's result.json on disk, each attempt has
# its own folder, the agent's event seqs are contiguous, and a next job with the same scenario id
# runs at once.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

start_controller '"heartbeat_timeout_s": 2, "max_scenario_attempts": 3'

cat > "$WORK/agent.json" <<JSON
{"agent_id": "agent-1", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/agent", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "dataset_cache_dir": "$WORK/datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "metrics_listen": "127.0.0.1:0", "child_stop_grace_s": 5}
JSON
"$KV_BIN/kv-agent" --config "$WORK/agent.json" 2>"$WORK/agent.log" &
agent=$!
PIDS+=("$agent")
connected() { grep -qw connected <<<"$("$kvctl" agents 2>/dev/null)"; }
wait_until 20 connected || { cat "$WORK/agent.log" >&2; fail "the agent did not connect"; }

# One GPU scenario whose replay lasts tens of seconds.
spec() {  # spec NAME SCALE FILE
  python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$1" "$2" "$3" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name=sys.argv[2], tiers=["GPU"], concurrency=[2], sessions=8)
spec["engine_overrides"]["sim_time_scale"] = float(sys.argv[3])
json.dump(spec, open(sys.argv[4], "w"))
PY
}
# Scale 2: a replay of about 20 s, so attempt 1 still runs when the agent comes back.
spec silent 2.0 "$WORK/silent.json"
job="$("$kvctl" submit "$WORK/silent.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "kvctl submit printed no job id"
scenario_json() { "$kvctl" status "$job" --output json | jq -c '.scenarios[0]'; }
replaying() { [ "$(scenario_json | jq -r '.progress.phase // ""')" = SCENARIO_PHASE_REPLAY ]; }
wait_until 60 replaying || { scenario_json >&2; cat "$WORK/agent.log" >&2; fail "no replay began"; }

kill -STOP "$agent"
requeued() { [ "$(scenario_json | jq -r '.state')" = SCENARIO_STATE_PENDING ]; }
wait_until 20 requeued || { kill -CONT "$agent"; scenario_json >&2; fail "the silent agent's scenario was not requeued"; }
kill -CONT "$agent"

ended() { case "$("$kvctl" status "$job" --output json | jq -r '.state')" in JOB_STATE_RUNNING | JOB_STATE_QUEUED) return 1;; esac; }
wait_until 180 ended || { scenario_json >&2; fail "the job did not end"; }
status="$("$kvctl" status "$job" --output json)"
[ "$(jq -r '.state' <<<"$status")" = JOB_STATE_SUCCEEDED ] ||
  { echo "$status" >&2; tail -50 "$WORK/agent.log" >&2; fail "the job did not succeed"; }
[ "$(jq -r '.scenarios[0].attempt' <<<"$status")" = 2 ] || fail "the scenario did not end on attempt 2: $status"
expect_contains "$(cat "$WORK/agent.log")" "attempt superseded"

# Each attempt has its own folder; the stored result is attempt 2's, as on disk.
folder="$WORK/agent/scenarios/$job"
[ -d "$folder/00-gpu-c2" ] || fail "attempt 1's folder is missing: $(ls "$folder")"
[ -s "$folder/00-gpu-c2.attempt-2/result.json" ] || fail "attempt 2 wrote no result.json: $(ls "$folder")"
stored="$(jq -c '.scenarios[0].result.simulated_latency' <<<"$status")"
on_disk="$(jq -c '.simulated_latency' "$folder/00-gpu-c2.attempt-2/result.json")"
[ "$stored" = "$on_disk" ] || fail "stored result $stored differs from attempt 2's result.json $on_disk"
[ "$stored" != null ] || fail "no simulated latency in the stored result"

# Attempt 1's late events were stored, counted, and not applied.
stale="$(curl -sf "$metrics_url" | sed -n 's/^kvbench_controller_link{counter="events_stale"} \([0-9.e+]*\)$/\1/p')"
awk -v n="${stale:-0}" 'BEGIN { exit !(n >= 1) }' || fail "no stale event counted (got '${stale}')"

# A next job with the same scenario id runs at once (it sat 'assigned' for 5 minutes before).
spec again 0.05 "$WORK/again.json"
next="$("$kvctl" submit "$WORK/again.json" --watch 2>"$WORK/again.err")" ||
  { echo "$next" >&2; cat "$WORK/again.err" >&2; fail "the next job did not succeed"; }

# The agent's events reached the controller once each, seqs contiguous from 1.
kill -TERM "$agent"
wait "$agent" || fail "the agent exited $? after SIGTERM"
expect_contiguous_events agent-1
# Nothing of either attempt is left running.
leftover="$(pgrep -f "$WORK/agent" || true)"
[ -z "$leftover" ] || fail "processes left: $(ps -o pid,args -p "${leftover//$'\n'/,}")"
echo "PASS"
