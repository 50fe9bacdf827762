#!/usr/bin/env bash
# A platform scheduler's client in Python (deploy/examples/python-client), stubs generated here
# from proto/kvbench/v1/ with Debian's protoc and grpc_python_plugin, against the real controller
# and a sim agent: a submit with a request_id; the controller killed (-9); the same submit again,
# made while the controller is down, retried until it is back: the same job, one job in all; the
# job watched to its end; its request rows read (as many as kvctl's); a second job cancelled; a
# schedule whose time zone is a FIFO, refused at once.
source "$(dirname "$0")/lib.sh"
client=(/usr/bin/python3 "$KV_SOURCE/deploy/examples/python-client/kvbench_client.py")
"$KV_SOURCE/deploy/examples/python-client/gen_stubs.sh" "$WORK/stubs"
export PYTHONPATH="$WORK/stubs"

# A controller on a fixed port, so that the one restarted answers at the same address.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
run_controller() {
  cat > "$WORK/controller.json" <<JSON
{"listen_address": "127.0.0.1:$port", "data_dir": "$WORK/controller", "insecure": true,
 "metrics_listen": "127.0.0.1:0", "heartbeat_timeout_s": 30}
JSON
  "$KV_BIN/kv-controller" --config "$WORK/controller.json" 2>>"$WORK/controller.log" &
  PIDS+=($!)
  controller_pid=$!
  serving() { grep -qs "controller started listen=127.0.0.1:$port" "$WORK/controller.log"; }
  wait_until 20 serving || fail "kv-controller did not start: $(tail -5 "$WORK/controller.log")"
}
run_controller
address="127.0.0.1:$port"
export KV_CONTROLLER="$address" KV_INSECURE=1
start_sim_agent agent-1
jq '.name = "scheduled" | .tiers = ["GPU", "CPU_RAM"] | .concurrency = [2] | .sessions = 4
  | .engine_overrides.sim_time_scale = 0.02' "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/spec.json"

first="$("${client[@]}" submit "$WORK/spec.json" --request-id nightly-2026-12-06 | jq -r .job_id)"
[ -n "$first" ] || fail "no job id from the Python client"
kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
# The scheduler retries the same submit while the controller is down.
"${client[@]}" submit "$WORK/spec.json" --request-id nightly-2026-12-06 > "$WORK/retried.json" \
  2> "$WORK/retried.err" &
retry_pid=$!
retrying() { grep -q "SubmitJob: .*; trying again" "$WORK/retried.err"; }
wait_until 30 retrying || fail "the client did not retry: $(cat "$WORK/retried.err")"
run_controller
wait "$retry_pid" || fail "the retried submit failed: $(cat "$WORK/retried.err")"
[ "$(jq -r .job_id "$WORK/retried.json")" = "$first" ] ||
  fail "the retried submit made job $(jq -r .job_id "$WORK/retried.json"), not $first"
[ "$("$KV_BIN/kvctl" jobs --output json | jq '[.jobs[] | select(.spec.name == "scheduled")] | length')" = 1 ] ||
  fail "the retried submit made a second job"

watched="$("${client[@]}" watch "$first")" || fail "watch failed"
[ "$(jq -r .state <<<"$watched")" = JOB_STATE_SUCCEEDED ] || fail "the job did not succeed: $watched"
rows="$("${client[@]}" requests "$first" | grep -c .)"
[ "$rows" = "$("$KV_BIN/kvctl" results "$first" --requests --output jsonl | grep -c .)" ] ||
  fail "the Python client read $rows request rows, kvctl another count"
[ "$rows" -gt 0 ] || fail "no request rows"

second="$("${client[@]}" submit "$WORK/spec.json" --request-id nightly-2026-12-07 | jq -r .job_id)"
[ "$second" != "$first" ] || fail "another request_id returned the same job"
[ "$("${client[@]}" cancel "$second" | jq -r .state)" = JOB_STATE_CANCELLED ] || fail "cancel did not cancel"
"${client[@]}" status "$second" > /dev/null || fail "status failed"
set +e
"${client[@]}" status no-such-job 2> "$WORK/missing.err"; code=$?
set -e
[ "$code" = 1 ] && expect_contains "$(cat "$WORK/missing.err")" "NOT_FOUND: no job no-such-job"
# A schedule whose time zone names a FIFO, sent straight to the controller (past kvctl's own
# check): the zone loader once opened it as a file and the controller's event loop hung in the
# open. Now the name is refused at once, and the loop answers the next call.
mkfifo "$WORK/zone-fifo"
timeout 30 /usr/bin/python3 - "$address" "$WORK/zone-fifo" "$first" <<'PY' ||
import sys, time
import grpc
from kvbench.v1 import controller_service_pb2 as api
from kvbench.v1 import controller_service_pb2_grpc as api_grpc
from kvbench.v1 import schedule_pb2
address, fifo, job_id = sys.argv[1:]
stub = api_grpc.ControllerStub(grpc.insecure_channel(address))
spec = schedule_pb2.ScheduleSpec(name="hostile-zone", cron="0 2 * * *", time_zone=fifo)
started = time.monotonic()
try:
    stub.CreateSchedule(api.CreateScheduleRequest(spec=spec), timeout=10)
    sys.exit("CreateSchedule with a FIFO as its time zone was accepted")
except grpc.RpcError as error:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    assert f'time_zone: "{fifo}" is not an IANA time zone name' in error.details(), error.details()
assert time.monotonic() - started < 5, time.monotonic() - started
assert stub.GetJob(api.GetJobRequest(job_id=job_id), timeout=5).job_id == job_id
print(f"a FIFO time zone refused in {time.monotonic() - started:.3f} s")
PY
  fail "a FIFO as a schedule's time zone was not refused at once"
echo "PASS: one job for two submits of one request_id ($first), $rows request rows"
