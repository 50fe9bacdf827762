#!/usr/bin/env bash
# A controller down for 8 days under an every-minute schedule (issue #36, item 9), through the
# real controller and kvctl: the schedule is created by a controller whose clock reads 8 days ago
# (libfaketime), which then stops; today's controller finds over 11,000 fire times passed, more
# than the 10,000 it counts. The FIRE_MISSED record must end at a fire time of the expression,
# the last before the grace window, and say so; before, it carried the time where counting stopped.
source "$(dirname "$0")/lib.sh"
libs=(/usr/lib/*/faketime/libfaketime.so.1)
[ -e "${libs[0]}" ] || fail "libfaketime is not installed (deploy/setup.sh test installs faketime)"
spec="$KV_SOURCE/deploy/examples/demo-sim.json"

# Eight days ago: the schedule is created, then its controller stops. (An ASan build wants its
# runtime first among the preloaded libraries; libfaketime only wraps clock calls, so that check
# is off.)
FAKETIME="-8d" LD_PRELOAD="${libs[0]}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  start_controller '"heartbeat_timeout_s": 5'
"$KV_BIN/kvctl" schedule create every-minute --spec "$spec" --cron "* * * * *" \
  --output json > "$WORK/created.json" || fail "create: $(cat "$WORK/created.json")"
created_ms="$(jq -r '.next_fire_unix_ms | tonumber' "$WORK/created.json")"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
[ "$created_ms" -lt $(($(now_ms) - 7 * 86400 * 1000)) ] ||
  fail "the controller's clock was not 8 days back: next fire at $created_ms"
kill -TERM "${PIDS[-1]}"
wait "${PIDS[-1]}" 2> /dev/null || true

# Today.
before_ms="$(now_ms)"
start_controller '"heartbeat_timeout_s": 5'
recorded() { grep -q "schedule fired schedule=every-minute outcome=missed" "$WORK/controller.log"; }
wait_until 20 recorded || fail "no missed record: $(grep schedule "$WORK/controller.log")"
after_ms="$(now_ms)"
"$KV_BIN/kvctl" schedule show every-minute --output json > "$WORK/shown.json" ||
  fail "show: $(cat "$WORK/shown.json")"
missed="$(jq -c '[.recent_fires[] | select(.outcome == "FIRE_MISSED")] | .[0]' "$WORK/shown.json")"
[ "$missed" != null ] || fail "no FIRE_MISSED among the recent fires: $(cat "$WORK/shown.json")"
fire_ms="$(jq -r '.fire_unix_ms | tonumber' <<< "$missed")"
# A fire time of "* * * * *": a whole minute. The last before the grace window (600 s back from
# the tick that found them): within a minute before before_ms - 600 s and after_ms - 600 s.
[ $((fire_ms % 60000)) = 0 ] || fail "the missed record's time $fire_ms is not a fire time"
grace_ms=600000
[ "$fire_ms" -gt $((before_ms - grace_ms - 60000)) ] && [ "$fire_ms" -le $((after_ms - grace_ms)) ] ||
  fail "the missed record ends at $fire_ms, not the last fire time before $((before_ms - grace_ms))"
fire_time="$(date -u -d "@$((fire_ms / 1000))" +%Y-%m-%dT%H:%M:%SZ)"
# From the first fire time the old controller left (the one after creation, or the next if a
# minute turned in its few seconds of life).
detail="$(jq -r .detail <<< "$missed")"
said=""
for first_ms in "$created_ms" $((created_ms + 60000)); do
  first_time="$(date -u -d "@$((first_ms / 1000))" +%Y-%m-%dT%H:%M:%SZ)"
  said="more than 10000 fire time(s) from $first_time to $fire_time passed while the controller was down, beyond the grace of 600 s"
  [ "$detail" = "$said" ] && break
done
[ "$detail" = "$said" ] || fail "the missed record says: $detail"
grep -qF "outcome=missed fire_time=$fire_time" "$WORK/controller.log" ||
  fail "the log names another time: $(grep "outcome=missed" "$WORK/controller.log")"
echo "PASS: 8 days missed, recorded from $first_time to $fire_time"
