#!/usr/bin/env bash
# An agent crash through the real processes: kv-agent killed with -9 mid-replay of an NVME
# scenario. Before, its cache server, replica and kv-runner ran on (kv-runner had no pid file and
# finished the replay on its own) and the NVMe pool dir stayed for good. Now every child dies with
# the agent (parent-death signal), before any restart; the restarted agent removes the pool dir it
# owned (and would kill by pid file any child that outlived it), the controller requeues the
# scenario (the agent came back without it), attempt 2 succeeds, and nothing of attempt 1 is
# left: no process, no pool dir.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

start_controller '"heartbeat_timeout_s": 30'

cat > "$WORK/agent.json" <<JSON
{"agent_id": "agent-1", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/agent", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "dataset_cache_dir": "$WORK/datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "nvme_cache_dir": "$WORK/nvme", "metrics_listen": "127.0.0.1:0", "child_stop_grace_s": 5}
JSON
start_agent() {
  "$KV_BIN/kv-agent" --config "$WORK/agent.json" 2>>"$WORK/agent.log" &
  agent=$!
  PIDS+=("$agent")
}
connected() { grep -qw connected <<<"$("$kvctl" agents 2>/dev/null)"; }
start_agent
wait_until 20 connected || { cat "$WORK/agent.log" >&2; fail "the agent did not connect"; }

python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="crash", tiers=["NVME"], concurrency=[2], sessions=8)
spec["engine_overrides"]["sim_time_scale"] = 1.0  # a replay of ~10 s: alive at the kill
json.dump(spec, open(sys.argv[2], "w"))
PY
job="$("$kvctl" submit "$WORK/spec.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "kvctl submit printed no job id"
runner_pid_file="$WORK/agent/run/kv-runner.pid"
wait_until 60 test -s "$runner_pid_file" || { cat "$WORK/agent.log" >&2; fail "kv-runner has no pid file"; }
pool="$WORK/nvme/$job-00-nvme-c2"
[ -d "$pool" ] || fail "no pool dir at $pool: $(ls "$WORK/nvme")"
children=()
for file in "$WORK"/agent/run/*.pid; do children+=("$(head -n 1 "$file")"); done
[ "${#children[@]}" -ge 3 ] || fail "expected cache-server, replica and kv-runner pid files: $(ls "$WORK/agent/run")"

kill -KILL "$agent"
wait "$agent" 2>/dev/null || true
gone() { for pid in "${children[@]}"; do kill -0 "$pid" 2>/dev/null && return 1; done; return 0; }
wait_until 30 gone || fail "children of the killed agent outlived it: $(ps -o pid,stat,args -p "$(IFS=,; echo "${children[*]}")")"
[ -d "$pool" ] || fail "the pool dir went before the agent restarted"
start_agent
wait_until 20 grep -q "removed NVMe pool dirs a previous run left count=1" "$WORK/agent.log" ||
  fail "the restarted agent did not report removing the pool dir"

status_of() { "$kvctl" status "$job" --output json; }
ended() { case "$(status_of | jq -r '.state')" in JOB_STATE_RUNNING | JOB_STATE_QUEUED) return 1;; esac; }
wait_until 180 ended || { status_of >&2; fail "the job did not end"; }
status="$(status_of)"
[ "$(jq -r '.state' <<<"$status")" = JOB_STATE_SUCCEEDED ] || { echo "$status" >&2; fail "the job did not succeed"; }
[ "$(jq -r '.scenarios[0].attempt' <<<"$status")" = 2 ] || fail "not attempt 2: $status"
expect_contains "$("$kvctl" status "$job")" "succeeded"

# Nothing of either attempt remains: no pool dir, no child; and the events of both agent runs
# (the first one's spooled, the restarted one's) reached the controller once each.
kill -TERM "$agent"
wait "$agent" || fail "the agent exited $? after SIGTERM"
expect_contiguous_events agent-1
[ -z "$(ls -A "$WORK/nvme")" ] || fail "pool dirs left: $(ls -A "$WORK/nvme")"
leftover="$(pgrep -f "$WORK/agent" || true)"
[ -z "$leftover" ] || fail "processes left: $leftover"
echo "PASS"
