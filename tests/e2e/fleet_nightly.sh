#!/usr/bin/env bash
# Schedules through the real processes: a schedule firing every minute on the loopback pair, two
# agents with different labels (gpu=sim on both, zone=a / zone=b), its job fanned out to each
# (placement FAN_OUT_EACH): runs on both, each scenario on its agent, and every request
# retrievable from the controller alone (kvctl results --requests), equal to the agents' own
# requests.jsonl. Then one agent stopped before a fire: only its part fails, naming it.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

# A stopped agent closes its stream: no short heartbeat timeout is needed (one of 4 s made agents
# under a loaded CI machine look lost, and their parts fail).
start_controller '"heartbeat_timeout_s": 30'
# fleet_agent ID ZONE: a kv-agent labelled gpu=sim, zone=ZONE, logging to $WORK/ID.log.
fleet_agent() {
  cat > "$WORK/$1.json" <<JSON
{"agent_id": "$1", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/$1", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "dataset_cache_dir": "$WORK/$1-datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "metrics_listen": "127.0.0.1:0", "heartbeat_interval_s": 1,
 "labels": {"gpu": "sim", "zone": "$2"}}
JSON
  "$KV_BIN/kv-agent" --config "$WORK/$1.json" 2>>"$WORK/$1.log" &
  PIDS+=($!)
}
fleet_agent sim-a a
agent_a=${PIDS[-1]}
fleet_agent sim-b b
agent_b=${PIDS[-1]}
connected_count() { "$kvctl" agents --output json | jq '[.[] | select(.state == "AGENT_STATE_CONNECTED")] | length'; }
both_connected() { [ "$(connected_count)" = 2 ]; }
wait_until 20 both_connected || fail "the agents did not connect: $("$kvctl" agents)"

python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="nightly", tiers=["GPU", "CPU_RAM"], concurrency=[2], sessions=4, replicas=1)
spec["engine_overrides"]["sim_time_scale"] = 0.02
spec["placement"] = {"agent_labels": {"gpu": "sim"}, "fan_out": "FAN_OUT_EACH", "agent_wait_s": 5}
json.dump(spec, open(sys.argv[2], "w"))
PY
"$kvctl" schedule create nightly --spec "$WORK/spec.json" --cron "* * * * *" --overlap queue \
  > /dev/null || fail "schedule create failed"

# The next minute's fire: a job with the whole matrix on each agent.
wait_until 75 grep -q "schedule fired schedule=nightly outcome=submitted" "$WORK/controller.log" ||
  fail "no fire: $(grep schedule "$WORK/controller.log")"
"$kvctl" schedule pause nightly > /dev/null
job="$(sed -n 's/.*schedule fired schedule=nightly outcome=submitted .* job_id=\([^ ]*\).*/\1/p' "$WORK/controller.log" | head -n 1)"
[ -n "$job" ] || fail "no job id in the fire line"
status_of() { "$kvctl" status "$1" --output json; }
ended() { case "$(status_of "$1" | jq -r '.state')" in JOB_STATE_RUNNING | JOB_STATE_QUEUED) return 1;; esac; }
wait_until 120 ended "$job" || { status_of "$job" >&2; fail "the scheduled job did not end"; }
status="$(status_of "$job")"
[ "$(jq -r '.state' <<<"$status")" = JOB_STATE_SUCCEEDED ] || { echo "$status" >&2; fail "the scheduled job did not succeed"; }
# Each scenario ran on the agent its id names; two per agent, grouped per agent.
placed="$(jq -r '.scenarios[] | "\(.scenario.scenario_id) \(.agent_id) \(.scenario.comparison_group)"' <<<"$status" | sort)"
[ "$placed" = "00-gpu-c2@sim-a sim-a c2@sim-a
01-cpu-ram-c2@sim-a sim-a c2@sim-a
02-gpu-c2@sim-b sim-b c2@sim-b
03-cpu-ram-c2@sim-b sim-b c2@sim-b" ] || fail "scenarios not placed per agent: $placed"
[ "$(jq -r '.spec.labels["kvbench.schedule"]' <<<"$status")" = nightly ] || fail "no schedule label"
[ "$(jq '.validity | length' <<<"$status")" = 2 ] || fail "validity is not per agent: $(jq -c '.validity' <<<"$status")"

# Every request, from the controller alone, equals what each agent wrote.
"$kvctl" results "$job" --requests > "$WORK/requests.jsonl" || fail "results --requests failed"
"$kvctl" results "$job" --requests --output csv > "$WORK/requests.csv" || fail "csv export failed"
python3 - "$WORK" "$job" <<'PY' || fail "the controller's request records differ from the agents' files"
import csv, glob, json, sys
work, job = sys.argv[1], sys.argv[2]
exported = [json.loads(line) for line in open(f"{work}/requests.jsonl")]
by_scenario = {}
for row in exported:
    by_scenario.setdefault(row["scenario_id"], []).append(row)
assert len(by_scenario) == 4, sorted(by_scenario)
keys = ["user_id", "session_id", "round", "scheduled_s", "sent_s", "first_token_s", "end_s",
        "ttft_s", "prompt_tokens", "output_tokens", "cached_tokens", "http_status", "error", "attempts"]
for scenario, rows in by_scenario.items():
    agent = scenario.split("@")[1]
    assert all(row["agent_id"] == agent for row in rows), scenario
    [path] = glob.glob(f"{work}/{agent}/scenarios/{job}/{scenario}/requests.jsonl")
    on_disk = [json.loads(line) for line in open(path) if line.strip()]
    assert len(on_disk) == len(rows) > 0, (scenario, len(on_disk), len(rows))
    assert [[r[k] for k in keys] for r in on_disk] == [[r[k] for k in keys] for r in rows], scenario
table = list(csv.DictReader(open(f"{work}/requests.csv")))
assert len(table) == len(exported), (len(table), len(exported))
assert table[0]["scenario_id"] == exported[0]["scenario_id"]
assert float(table[0]["end_s"]) == exported[0]["end_s"]
print("rows", len(exported))
PY

# Both agents' results are shown and named: the results table leads each row with
# its AGENT, the report charts each agent apart, with points, under headings and titles naming it.
table="$("$kvctl" results "$job")" || fail "results failed: $table"
[ "$(awk '$1 == "AGENT" { print $2, $3 }' <<<"$table")" = "CONCURRENCY TIER" ] ||
  fail "the results table has no AGENT column: $table"
[ "$(awk '$1 ~ /^sim-/ && $2 == 2 { print $1, $3 }' <<<"$table" | paste -sd,)" = \
  "sim-a GPU,sim-a CPU_RAM,sim-b GPU,sim-b CPU_RAM" ] || fail "not one row per agent and tier: $table"
"$kvctl" report "$job" --html "$WORK/report.html" > /dev/null || fail "report failed"
python3 - "$WORK/report.html" <<'PY' || fail "the report does not draw and name both agents"
import re, sys
html = open(sys.argv[1]).read()
parts = html.split("<h2>TTFT: agent ")
assert len(parts) == 3, f"{len(parts) - 1} per-agent TTFT sections"
for part, agent in zip(parts[1:], ["sim-a", "sim-b"]):
    assert part.startswith(agent + "</h2>"), part[:40]
    charts = part.split("<h2>Engine")[0]
    assert f"TTFT p50 and p95 by concurrency, agent {agent}" in charts, agent
    for tier in ["GPU", "CPU_RAM"]:
        points = re.findall(rf"<title>{tier} p50, concurrency 2: [0-9.]+ ", charts)
        assert len(points) == 1, (agent, tier, len(points))
engine = html.split('<table class="engine">')[1].split("</table>")[0]
assert "<th>agent</th>" in engine
assert engine.count("<td>sim-a</td>") == 2 and engine.count("<td>sim-b</td>") == 2, engine
PY

# sim-b stops before the next fire: its part fails after placement.agent_wait_s, named; sim-a's
# part runs.
kill -TERM "$agent_b"
wait "$agent_b" 2>/dev/null || true
one_connected() { [ "$(connected_count)" = 1 ]; }
wait_until 20 one_connected || fail "sim-b still connected"
"$kvctl" schedule run-now nightly > "$WORK/run-now.txt" || fail "run-now: $(cat "$WORK/run-now.txt")"
second="$(sed -n 's/.*submitted job \([^ ]*\).*/\1/p' "$WORK/run-now.txt")"
[ -n "$second" ] || fail "run-now printed no job: $(cat "$WORK/run-now.txt")"
wait_until 120 ended "$second" || { status_of "$second" >&2; fail "the second job did not end"; }
status="$(status_of "$second")"
[ "$(jq -r '.state' <<<"$status")" = JOB_STATE_FAILED ] || fail "second job: $(jq -r '.state' <<<"$status")"
states="$(jq -r '.scenarios[] | "\(.scenario.agent_id) \(.state)"' <<<"$status" | sort | uniq -c | awk '{print $2, $3, $1}')"
[ "$states" = "sim-a SCENARIO_STATE_SUCCEEDED 2
sim-b SCENARIO_STATE_FAILED 2" ] || fail "not only sim-b's part failed: $states"
expect_contains "$(jq -r '.scenarios[] | select(.scenario.agent_id == "sim-b") | .error' <<<"$status")" \
  "agent sim-b was down (not connected) for 5 s after the job was submitted"
echo "PASS"
