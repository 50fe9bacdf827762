#!/usr/bin/env bash
# Schedules through the real controller and kvctl. A schedule firing every minute,
# with the controller killed (-9) before a fire time and restarted after it: the missed fire runs
# once (within the grace), and a second kill and restart right after it never fires it again.
# Then kvctl's schedule commands: show, list, pause, run-now, resume, delete, and a bad schedule
# refused before any network (exit 2).
source "$(dirname "$0")/lib.sh"
spec="$KV_SOURCE/deploy/examples/demo-sim.json"

start_controller '"heartbeat_timeout_s": 5'
"$KV_BIN/kvctl" schedule create every-minute --spec "$spec" --cron "* * * * *" \
  --time-zone Europe/Berlin > "$WORK/created.txt" || fail "create: $(cat "$WORK/created.txt")"
expect_contains "$(cat "$WORK/created.txt")" "schedule every-minute: active"
expect_contains "$(cat "$WORK/created.txt")" "cron:       * * * * * (Europe/Berlin)"

# Down across a fire time: kill now, wait until the next minute has begun, restart.
kill -KILL "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null || true
boundary=$(( ($(date +%s) / 60 + 1) * 60 ))
fire_time="$(date -u -d "@$boundary" +%Y-%m-%dT%H:%M:%SZ)"
past_boundary() { [ "$(date +%s)" -gt "$boundary" ]; }
wait_until 75 past_boundary || fail "the clock did not pass $fire_time"
start_controller '"heartbeat_timeout_s": 5'
fired="schedule fired schedule=every-minute outcome=submitted fire_time=$fire_time"
wait_until 20 grep -qF "$fired" "$WORK/controller.log" ||
  fail "the missed fire of $fire_time did not run: $(grep schedule "$WORK/controller.log")"

# Killed right after the fire and restarted: that fire time is never fired again.
kill -KILL "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null || true
start_controller '"heartbeat_timeout_s": 5'
wait_until 20 grep -qs "schedules loaded count=1" "$WORK/controller.log" || fail "no schedules loaded"
"$KV_BIN/kvctl" schedule show every-minute > "$WORK/show.txt" || fail "show failed"
jobs_for_fire() {
  "$KV_BIN/kvctl" jobs --label kvbench.schedule=every-minute --label "kvbench.fire_time=$fire_time" \
    --output json | jq '.jobs | length'
}
[ "$(jobs_for_fire)" = 1 ] || fail "fire $fire_time has $(jobs_for_fire) jobs, not 1"
# Fire times read in the schedule's zone, as its cron does, then in UTC.
fires="$(grep -cF "$(TZ=Europe/Berlin date -d "@$boundary" '+%Y-%m-%d %H:%M:%S %Z') ($(date -u -d "@$boundary" '+%H:%M:%S') UTC)" "$WORK/show.txt" || true)"
[ "$fires" = 1 ] || fail "fire $fire_time is recorded $fires times: $(cat "$WORK/show.txt")"
expect_contains "$(cat "$WORK/show.txt")" "submitted"
job_id="$("$KV_BIN/kvctl" jobs --label "kvbench.fire_time=$fire_time" --output json | jq -r '.jobs[0].job_id')"
labels="$("$KV_BIN/kvctl" status "$job_id" --output json | jq -c '.spec.labels')"
expect_contains "$labels" "\"kvbench.schedule\":\"every-minute\""

# The rest of the commands.
"$KV_BIN/kvctl" schedule list > "$WORK/list.txt"
expect_contains "$(cat "$WORK/list.txt")" "every-minute  * * * * *  Europe/Berlin  skip     active"
"$KV_BIN/kvctl" schedule pause every-minute > /dev/null
expect_contains "$("$KV_BIN/kvctl" schedule list)" "paused"
"$KV_BIN/kvctl" schedule run-now every-minute > "$WORK/run-now.txt" || fail "run-now: $(cat "$WORK/run-now.txt")"
# The fired job may still be queued (no agent): the overlap policy (skip) applies.
expect_contains "$(cat "$WORK/run-now.txt")" "schedule every-minute: skipped"
"$KV_BIN/kvctl" schedule resume every-minute --output json > "$WORK/resumed.json"
[ "$(jq -r '.paused // false' "$WORK/resumed.json")" = false ] || fail "resume did not resume"
[ "$("$KV_BIN/kvctl" schedule delete every-minute)" = "schedule every-minute deleted" ] || fail "delete"
set +e
"$KV_BIN/kvctl" schedule show every-minute 2> "$WORK/gone.txt"; rc=$?
"$KV_BIN/kvctl" schedule create bad --spec "$spec" --cron "0 25 * * *" --time-zone Mars/Base \
  2> "$WORK/bad.txt"; bad_rc=$?
set -e
[ "$rc" != 0 ] || fail "a deleted schedule is still shown"
expect_contains "$(cat "$WORK/gone.txt")" "no schedule named \"every-minute\""
[ "$bad_rc" = 2 ] || fail "a bad schedule gave exit $bad_rc, not 2: $(cat "$WORK/bad.txt")"
expect_contains "$(cat "$WORK/bad.txt")" "cron: hour: 25 is outside 0-23"
echo "PASS"
