#!/usr/bin/env bash
# PostgreSQL under live controllers (a leader and a standby, kvctl and two agents given both):
# - restarted mid-job (down for about a second): the leader keeps its lease and carries on, the job
#   completes with every request row stored once, equal to the agents' requests.jsonl;
# - down for 20 s mid-job, longer than the lease (10 s) and the controller's heartbeat timeout
#   (15 s): the leader, unable to renew its lease for a lease, stops naming the store (exit 4); a
#   submit made meanwhile waits; once PostgreSQL is back the standby leads, the submit lands and
#   both jobs complete, nothing the agents were acknowledged lost and nothing stored twice (rows
#   equal to the files, each agent's events once).
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
# A lease well past a restart's length on a loaded 2-core host (a fast shutdown's checkpoint and
# a start, fsync on: 1-2 s alone, more beside other tests); a restart longer than the lease
# would rightly cost the leader its lease.
lease_s=10
start_postgres
start_ha_controller a
wait_until 20 leads a || fail "controller a did not lead: $(tail -5 "$WORK/a.log")"
start_ha_controller b
wait_until 20 waits b || fail "controller b is not a standby: $(tail -5 "$WORK/b.log")"
address="$addr_a,$addr_b"
export KV_CONTROLLER="$address" KV_INSECURE=1
start_sim_agent agent-1
start_sim_agent agent-2
write_fan_out_spec fanout          # the demo's pace: a scenario runs for about 10 s
write_fan_out_spec quick 0.02 4    # the sim at 50x

submit_running() {
  local job
  job="$("$kvctl" submit "$WORK/fanout.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
  [ -n "$job" ] || fail "no job submitted"
  running() { grep -q "running" <<<"$("$kvctl" status "$1" 2>/dev/null)"; }
  wait_until 30 running "$job" || fail "job $job never ran: $("$kvctl" status "$job")"
  echo "$job"
}
ends_well() {
  local code=0 out
  out="$("$kvctl" watch "$1" 2>&1)" || code=$?
  exit_ok "$code" "$out" || { echo "$out" >&2; tail -20 "$WORK"/[ab].log >&2; fail "job $1 did not end well"; }
}

# --- restarted mid-job
job="$(submit_running)"
stopped_at=$SECONDS
stop_postgres
resume_postgres
echo "restart: PostgreSQL away for $((SECONDS - stopped_at))s"
ends_well "$job"
grep -q "lost leadership" "$WORK/a.log" &&
  fail "the leader lost its lease to a restart of $((SECONDS - stopped_at))s or less: $(grep "lost leadership" "$WORK/a.log")"
echo "restart: $(expect_rows_match_agents "$job") rows of $job"

# --- down for longer than the lease and the heartbeat timeout
job="$(submit_running)"
stop_postgres
down_at=$SECONDS
# A submit meanwhile waits within its deadline (30 s) for a controller that can store it.
"$kvctl" submit "$WORK/quick.json" > "$WORK/submitted-during-outage.txt" 2>&1 &
submit_pid=$!
# The leader cannot renew its lease: after a lease it stops acting, naming the store (exit 4,
# UNAVAILABLE; a supervisor restarts it as a standby).
code=0
wait "$pid_a" || code=$?
[ "$code" = 4 ] || fail "the leader that could not renew its lease exited $code, not 4"
expect_contains "$(cat "$WORK/a.log")" "the lease could not be renewed for"
expect_contains "$(cat "$WORK/a.log")" "postgresql://kvbench@"
echo "leader stopped after $((SECONDS - down_at))s without its store (lease ${lease_s}s)"
outage_over() { [ $((SECONDS - down_at)) -ge 20 ]; }
wait_until 30 outage_over
resume_postgres
wait_until 30 leads b || fail "the standby did not lead once the store was back: $(tail -5 "$WORK/b.log")"
expect_contains "$(cat "$WORK/b.log")" "leading term=2"
wait "$submit_pid" || fail "the submit made during the outage failed: $(cat "$WORK/submitted-during-outage.txt")"
quick="$(sed -n 's/^job \([^:]*\):.*/\1/p' "$WORK/submitted-during-outage.txt" | head -1)"
[ -n "$quick" ] || fail "no job id from the submit made during the outage"
ends_well "$job"
ends_well "$quick"
echo "outage: $(expect_rows_match_agents "$job") rows of $job, $(expect_rows_match_agents "$quick") of $quick"
expect_pg_events_once agent-1 agent-2
echo "PASS"
