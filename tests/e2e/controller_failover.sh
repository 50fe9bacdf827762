#!/usr/bin/env bash
# Controllers that fail over, on one real PostgreSQL server. Three kv-controllers share its store,
# each on its own port: one leads, two are standbys that answer reads from the store and refuse
# everything else naming the leader. kvctl and two agents are given all three addresses.
# - A write sent to a standby alone reaches the leader (the redirect is followed).
# - A fan-out job runs on both agents with a schedule about to fire; the leader is killed (-9)
#   two seconds before the fire time. A standby leads within the lease (5 s here), the agents
#   find it and replay, the missed fire is fired once, and both jobs complete: every request row
#   stored once and equal, field by field, to the agents' requests.jsonl; each agent's events
#   stored once with contiguous seqs.
# - The new leader paused (SIGSTOP) past its lease while the last standby takes over: on SIGCONT
#   it finds its term taken (the fence: nothing it writes lands), says so and exits 5.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
lease_s=5  # start_ha_controller's; a loaded CI host has shown 1.8 s commits: a lease must outlast a slow one
start_postgres
start_ha_controller a
wait_until 20 leads a || fail "controller a did not lead: $(tail -5 "$WORK/a.log")"
expect_contains "$(cat "$WORK/a.log")" "leading term=1"
start_ha_controller b
start_ha_controller c
wait_until 20 waits b || fail "controller b is not a standby: $(tail -5 "$WORK/b.log")"
wait_until 20 waits c || fail "controller c is not a standby: $(tail -5 "$WORK/c.log")"
expect_contains "$(cat "$WORK/b.log")" "kv-controller pid $pid_a"
expect_contains "$(cat "$WORK/b.log")" "standby serving reads listen=$addr_b"
address="$addr_a,$addr_b,$addr_c"  # start_sim_agent's controller_address
export KV_CONTROLLER="$address" KV_INSECURE=1
start_sim_agent agent-1
start_sim_agent agent-2

write_fan_out_spec fanout             # the demo's pace: a scenario runs for about 10 s
write_fan_out_spec nightly 0.02 4     # quick: the sim at 50x

# The schedule is made and the job starts 10 s before a minute's fire time; the leader dies 2 s
# before it.
boundary=$(( ($(date +%s) + 12) / 60 * 60 + 60 ))
fire_time="$(date -u -d "@$boundary" +%Y-%m-%dT%H:%M:%SZ)"
at() { [ "$(date +%s)" -ge "$1" ]; }
wait_until 75 at $((boundary - 10)) || fail "the clock did not reach $((boundary - 10))"
# A standby refuses a write naming the leader; kvctl given only the standby follows it.
KV_CONTROLLER="$addr_b" "$kvctl" schedule create nightly --spec "$WORK/nightly.json" \
  --cron "* * * * *" --overlap queue > "$WORK/created.txt" 2>&1 ||
  fail "a schedule created through a standby: $(cat "$WORK/created.txt")"
job="$(KV_CONTROLLER="$addr_c" "$kvctl" submit "$WORK/fanout.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "no job submitted through a standby"
running() { grep -q "running" <<<"$("$kvctl" status "$job" 2>/dev/null)"; }
wait_until 8 running || fail "job $job never ran: $("$kvctl" status "$job")"
wait_until 10 at $((boundary - 2)) || fail "the clock did not reach $((boundary - 2))"
kill -KILL "$pid_a"
killed_at=$SECONDS
new_leader=""
someone_leads() {
  for name in b c; do leads "$name" && { new_leader=$name; return 0; }; done
  return 1
}
wait_until $((lease_s * 4)) someone_leads || fail "no standby took over: $(tail -3 "$WORK/b.log" "$WORK/c.log")"
took=$((SECONDS - killed_at))
echo "failover: controller $new_leader leads after ${took}s (lease ${lease_s}s)"
[ "$took" -le $((lease_s * 3)) ] || fail "the takeover took ${took}s for a ${lease_s}s lease"
expect_contains "$(cat "$WORK/$new_leader.log")" "leading term=2"
new_pid_var="pid_$new_leader"
new_pid="${!new_pid_var}"
standby=b
[ "$new_leader" = b ] && standby=c

# --- the job completes under the new leader; the missed fire is fired once
code=0
out="$("$kvctl" watch "$job" 2>&1)" || code=$?
exit_ok "$code" "$out" || { echo "$out" >&2; tail -20 "$WORK/$new_leader.log" >&2; fail "the job did not end well after the failover"; }
expect_contains "$("$kvctl" status "$job")" "succeeded"
fired="schedule fired schedule=nightly outcome=submitted fire_time=$fire_time"
wait_until 20 grep -qF "$fired" "$WORK/$new_leader.log" ||
  fail "the fire of $fire_time did not run under the new leader: $(grep -h "schedule fired" "$WORK"/[abc].log)"
"$kvctl" schedule pause nightly > /dev/null
fire_jobs() { "$kvctl" jobs --label kvbench.schedule=nightly --label "kvbench.fire_time=$fire_time" --output json; }
[ "$(fire_jobs | jq '.jobs | length')" = 1 ] || fail "fire $fire_time has $(fire_jobs | jq '.jobs | length') jobs, not 1"
fired_times="$(grep -hF "fire_time=$fire_time" "$WORK"/[abc].log | grep -c "schedule fired" || true)"
[ "$fired_times" = 1 ] || fail "fire $fire_time was fired $fired_times times"
scheduled="$(fire_jobs | jq -r '.jobs[0].job_id')"
code=0
out="$("$kvctl" watch "$scheduled" 2>&1)" || code=$?
exit_ok "$code" "$out" || { echo "$out" >&2; fail "the scheduled job did not end well"; }

# Every row stored once, equal to the agents' files; every event once. A standby reads as well.
echo "rows: $(expect_rows_match_agents "$job") of $job, $(expect_rows_match_agents "$scheduled") of $scheduled"
expect_contains "$(KV_CONTROLLER="$(eval echo "\$addr_$standby")" "$kvctl" status "$job")" "succeeded"
expect_pg_events_once agent-1 agent-2

# --- the new leader paused past its lease: the standby leads; the old one wakes and steps down
kill -STOP "$new_pid"
wait_until $((lease_s * 6)) leads "$standby" || fail "controller $standby did not take over: $(tail -5 "$WORK/$standby.log")"
expect_contains "$(cat "$WORK/$standby.log")" "leading term=3"
kill -CONT "$new_pid"
code=0
wait "$new_pid" || code=$?
[ "$code" = 5 ] || fail "the woken leader exited $code, not 5: $(tail -5 "$WORK/$new_leader.log")"
expect_contains "$(cat "$WORK/$new_leader.log")" "lost leadership"
expect_contains "$(cat "$WORK/$new_leader.log")" "(term 3)"
expect_contains "$("$kvctl" status "$job")" "succeeded"
echo "PASS"
