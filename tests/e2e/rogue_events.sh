#!/usr/bin/env bash
# A rogue agent with a CA-signed certificate of its own (issue #36), against a secure controller
# and a real agent, through kv-rogue-agent (tests/tools/rogue_agent.cc):
#  - its forged request rows and "failed: INJECTED FAILURE" for the real agent's finished job, an
#    alert (the controller's field) and an event of a job that does not exist are acknowledged
#    but refused, counted by reason in /metrics and logged naming it; `kvctl results --requests`,
#    `kvctl status` and `kvctl watch` of the job read as before;
#  - event seqs 0, 2^63-1 and a gap end its stream INVALID_ARGUMENT, counted, and its acked_seq
#    stays where it was (2^63-1 stored and acknowledged stopped an agent's delivery for good);
#  - given a scenario, it heartbeats and never starts it: after assignment_timeout_s the scenario
#    is lost with that reason and runs on the real agent as attempt 2, and `kvctl watch` names
#    the attempt on each line;
#  - given another, it sends RUNNING and then only heartbeats: after event_silence_timeout_s (60,
#    its floor) the scenario is lost with that reason and runs on the real agent as attempt 2
#    (before, it stayed running for as long as the rogue heartbeated).
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
pki="$WORK/pki"
"$KV_SOURCE/deploy/examples/make-test-ca.sh" "$pki" example-token > /dev/null 2>&1 ||
  fail "make-test-ca.sh failed"
# A second agent certificate from the same CA, for the name a-rogue (sorted before local-agent:
# placement's tie-break gives it the next scenario).
(cd "$pki" && umask 077 &&
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out rogue.key 2>/dev/null &&
  openssl req -new -key rogue.key -subj "/O=kvbench test/CN=a-rogue" -out rogue.csr &&
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' > rogue.ext &&
  openssl x509 -req -in rogue.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -sha256 \
    -extfile rogue.ext -out rogue.pem 2>/dev/null) || fail "cannot sign the rogue's certificate"

jq --arg dir "$WORK/controller" '.listen_address = "127.0.0.1:0" | .data_dir = $dir
  | .metrics_listen = "127.0.0.1:0" | .assignment_timeout_s = 3
  | .event_silence_timeout_s = 60' "$pki/controller.json" \
  > "$WORK/controller.json"
"$KV_BIN/kv-controller" --config "$WORK/controller.json" 2> "$WORK/controller.log" &
PIDS+=($!)
started() { grep -qs "controller started listen=" "$WORK/controller.log" &&
  grep -qs "metrics url=" "$WORK/controller.log"; }
wait_until 20 started || { cat "$WORK/controller.log" >&2; fail "the controller did not start"; }
address="$(sed -n 's/.*controller started listen=\([^ ]*\).*/\1/p' "$WORK/controller.log")"
metrics_url="$(sed -n 's/.*metrics url=\([^ ]*\).*/\1/p' "$WORK/controller.log")"
export KV_CONTROLLER="$address" KV_CA_CERT="$pki/ca.pem" KV_TOKEN=example-token

jq --arg address "$address" --arg work "$WORK/agent" --arg profiles "$KV_SOURCE/deploy/profiles" \
  '.controller_address = $address | .work_dir = $work | .profiles_dir = $profiles
   | .metrics_listen = "127.0.0.1:0" | .dataset_cache_dir = ($work + "-datasets")
   | del(.nvme_cache_dir)' "$pki/agent.json" > "$WORK/agent.json"
"$KV_BIN/kv-agent" --config "$WORK/agent.json" 2> "$WORK/agent.log" &
PIDS+=($!)
connected() { grep -q "local-agent .*connected" <<<"$("$kvctl" agents 2>/dev/null)"; }
wait_until 20 connected || { cat "$WORK/agent.log" >&2; fail "the real agent did not connect"; }

python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="owned", tiers=["GPU"], concurrency=[2], sessions=4)
spec["engine_overrides"]["sim_time_scale"] = 0.05
json.dump(spec, open(sys.argv[2], "w"))
PY
job_state() { "$kvctl" status "$1" --output json | jq -r '.state'; }
ended() { case "$(job_state "$1")" in JOB_STATE_RUNNING | JOB_STATE_QUEUED) return 1;; esac; }
submit() { "$kvctl" submit "$WORK/spec.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1; }
job="$(submit)"
[ -n "$job" ] || fail "kvctl submit printed no job id"
wait_until 60 ended "$job" || fail "job $job did not end: $("$kvctl" status "$job")"
[ "$(job_state "$job")" = JOB_STATE_SUCCEEDED ] || fail "job $job did not succeed: $("$kvctl" status "$job")"
scenario="$("$kvctl" status "$job" --output json | jq -r '.scenarios[0].scenario.scenario_id')"
rows_before="$("$kvctl" results "$job" --requests)"
watch_before="$("$kvctl" watch "$job" 2>&1)"

# --- forged events for the real agent's job, a controller-only field, a job that is not there
rogue=("$KV_BIN/kv-rogue-agent" --address "$address" --agent_id a-rogue --ca "$pki/ca.pem"
  --cert "$pki/rogue.pem" --key "$pki/rogue.key")
ev() {  # ev SEQ PAYLOAD [JOB]: an event of attempt 1 of the job's scenario, as JSON
  printf '{"event": {"seq": "%s", "job_id": "%s", "scenario_id": "%s", "attempt": 1, %s}}\n' \
    "$1" "${3:-$job}" "$scenario" "$2"
}
{
  ev 1 '"requests": {"first_index": 0, "total": 3, "rows": [{"sent_s": 99}, {"sent_s": 99}, {"sent_s": 99}]}'
  ev 2 '"requests": {"first_index": 100000, "total": 100001, "rows": [{"sent_s": 99}]}'
  ev 3 '"state_change": {"state": "SCENARIO_STATE_FAILED", "reason": "INJECTED FAILURE"}'
  ev 4 "\"alert\": {\"job_id\": \"$job\", \"scenario_id\": \"$scenario\", \"metric\": \"ttft_p50_s\"}"
  ev 5 '"log": {"severity": "ERROR", "text": "INJECTED LOG"}' no-such-job
  echo '{"wait_ack": 5}'
  echo '{"reconnect": true}'
  ev 0 '"log": {"text": "seq zero"}'
  echo '{"wait_ack": 1}'
  echo '{"reconnect": true}'
  ev 9223372036854775807 '"log": {"text": "the last seq"}'
  echo '{"wait_ack": 1}'
  echo '{"reconnect": true}'
  ev 6 '"log": {"text": "six"}'
  ev 8 '"log": {"text": "a gap"}'
  echo '{"wait_ack": 8}'
  echo '{"reconnect": true}'
} > "$WORK/forge.jsonl"
"${rogue[@]}" --script "$WORK/forge.jsonl" > "$WORK/forge.out" 2>&1 || fail "kv-rogue-agent failed: $(cat "$WORK/forge.out")"
out="$(cat "$WORK/forge.out")"
expect_contains "$out" "ack 5"
expect_contains "$out" "closed 3: event seq 0 is out of range"
expect_contains "$out" "closed 3: event seq 9223372036854775807 is out of range"
expect_contains "$out" "closed 3: event seq 8 follows seq 6 on this stream: seqs must be contiguous (expected 7)"
# Nothing of it stored: its last registration's acked_seq is still 0 (it was 2^63-1).
[ "$(grep '^registered' "$WORK/forge.out" | tail -1)" = "registered acked_seq=0" ] ||
  fail "the rogue's acked_seq moved: $out"
counted() {
  local text
  text="$(curl -fsS "$metrics_url")" || return 1
  for counter in refused_not_owner:4 refused_controller_only:1 refused_unknown_job:1 refused_bad_seq:3; do
    grep -Eq "^kvbench_controller_link\{counter=\"${counter%:*}\"\} ${counter#*:}$" <<<"$text" || return 1
  done
}
wait_until 20 counted || fail "the refusals are not counted: $(curl -s "$metrics_url" | grep refused)"
expect_line() {
  wait_until 20 grep -qF -- "$1" "$WORK/controller.log" || fail "controller.log has no line \"$1\""
}
expect_line "refused an agent's event agent=a-rogue reason=refused_not_owner job=$job scenario=$scenario"
expect_line "refused an agent's event for its seq; ending its stream agent=a-rogue"
[ "$("$kvctl" results "$job" --requests)" = "$rows_before" ] || fail "the job's request rows changed"
[ "$(job_state "$job")" = JOB_STATE_SUCCEEDED ] || fail "job $job is no longer SUCCEEDED"
watch_after="$("$kvctl" watch "$job" 2>&1)"
[ "$watch_after" = "$watch_before" ] || fail "kvctl watch changed: $watch_after"
for forged in "INJECTED" REGRESSION; do
  [[ "$watch_after" != *"$forged"* ]] || fail "kvctl watch shows $forged: $watch_after"
done
expect_contains "$watch_after" "$scenario #1"

# expect_rerun_on_real_agent JOB: JOB succeeded, its scenario run by the real agent as attempt 2
# (sets $status to its status as JSON).
expect_rerun_on_real_agent() {
  [ "$(job_state "$1")" = JOB_STATE_SUCCEEDED ] || fail "job $1 did not succeed: $("$kvctl" status "$1")"
  status="$("$kvctl" status "$1" --output json)"
  [ "$(jq -r '.scenarios[0].attempt' <<<"$status")" = 2 ] || fail "not run as attempt 2: $status"
  [ "$(jq -r '.scenarios[0].agent_id' <<<"$status")" = local-agent ] || fail "not run by the real agent: $status"
}

# --- given a scenario, the rogue heartbeats as running it and never starts it
"${rogue[@]}" --hold_s 40 > "$WORK/hold.out" 2>&1 &
hold_pid=$!
PIDS+=($hold_pid)
wait_until 20 grep -qs "^registered" "$WORK/hold.out" || fail "the rogue did not register: $(cat "$WORK/hold.out")"
next="$(submit)"
[ -n "$next" ] || fail "kvctl submit printed no job id"
wait_until 20 grep -q "^assignment job=$next" "$WORK/hold.out" ||
  fail "the rogue was not given the scenario: $(cat "$WORK/hold.out"; "$kvctl" status "$next")"
wait_until 60 ended "$next" || fail "job $next did not end (its scenario stayed assigned?): $("$kvctl" status "$next")"
expect_rerun_on_real_agent "$next"
expect_contains "$(cat "$WORK/hold.out")" "reason=agent a-rogue did not start attempt 1 within 3s of its assignment (assignment_timeout_s)"
watched="$("$kvctl" watch "$next" 2>&1)"
expect_contains "$watched" "$scenario #1   lost: agent a-rogue did not start attempt 1 within 3s"
expect_contains "$watched" "$scenario #2   succeeded"
grep -Eq '^kvbench_controller_link\{counter="assignments_timed_out"\} 1$' <<<"$(curl -fsS "$metrics_url")" ||
  fail "the timed-out assignment is not counted"
kill "$hold_pid" 2> /dev/null
wait "$hold_pid" 2> /dev/null || true

# --- given a scenario, the rogue starts it and then sends nothing more while it heartbeats
"${rogue[@]}" --start --hold_s 120 > "$WORK/silent.out" 2>&1 &
PIDS+=($!)
wait_until 20 grep -qs "^registered" "$WORK/silent.out" || fail "the rogue did not register: $(cat "$WORK/silent.out")"
silent="$(submit)"
[ -n "$silent" ] || fail "kvctl submit printed no job id"
wait_until 20 grep -q "^started seq=" "$WORK/silent.out" ||
  fail "the rogue did not start the scenario: $(cat "$WORK/silent.out"; "$kvctl" status "$silent")"
running() { [ "$("$kvctl" status "$silent" --output json | jq -r '.scenarios[0].state')" = SCENARIO_STATE_RUNNING ]; }
wait_until 10 running || fail "the rogue's RUNNING was not applied: $("$kvctl" status "$silent")"
wait_until 100 ended "$silent" || fail "job $silent did not end (its scenario stayed running?): $("$kvctl" status "$silent")"
expect_rerun_on_real_agent "$silent"
expect_contains "$(cat "$WORK/silent.out")" "reason=no event from agent a-rogue about attempt 1 for 1m"
watched="$("$kvctl" watch "$silent" 2>&1)"
silent_scenario="$(jq -r '.scenarios[0].scenario.scenario_id' <<<"$status")"
expect_contains "$watched" "$silent_scenario #1   lost: no event from agent a-rogue about attempt 1 for 1m"
expect_contains "$watched" "(event_silence_timeout_s), while it heartbeats"
expect_contains "$watched" "$silent_scenario #2   succeeded"
grep -Eq '^kvbench_controller_link\{counter="attempts_silent"\} 1$' <<<"$(curl -fsS "$metrics_url")" ||
  fail "the silent attempt is not counted"
echo "PASS"
