#!/usr/bin/env bash
# Controllers that fail over, on one real PostgreSQL server: three kv-controllers share its
# store, one leads (it alone listens) and two wait as standbys. The demo job runs on two agents;
# mid-run the leader is killed with -9, a standby leads within the lease (5 s here) on the same
# address, the agents reconnect and the job completes: every request row stored once (the count
# the agents' requests.jsonl hold), each agent's events stored once with contiguous seqs. Then the
# new leader is stopped (SIGSTOP) past its lease while a standby on another port takes over; on
# SIGCONT it finds its term taken (the fence: nothing it writes lands), says so and exits 5.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
lease_s=5  # a loaded CI host has shown 1.8 s commits: a lease must outlast a slow one
start_postgres
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port="$(free_port)"
address="127.0.0.1:$port"

# start_ha_controller NAME LISTEN: a controller on the shared store, logging to $WORK/NAME.log;
# sets pid_NAME.
start_ha_controller() {
  cat > "$WORK/$1.json" <<JSON
{"listen_address": "$2", "data_dir": "$WORK/$1", "insecure": true, "metrics_listen": "127.0.0.1:0",
 "heartbeat_timeout_s": 15,
 "store": {"postgresql": {"dsn_file": "$WORK/pg.dsn", "lease_s": $lease_s}}}
JSON
  "$KV_BIN/kv-controller" --config "$WORK/$1.json" 2>"$WORK/$1.log" &
  PIDS+=($!)
  printf -v "pid_$1" '%s' "$!"
}
leads() { grep -q "controller started listen=" "$WORK/$1.log"; }
waits() { grep -q "standby: the leader is" "$WORK/$1.log"; }

start_ha_controller a "$address"
wait_until 20 leads a || fail "controller a did not lead: $(tail -5 "$WORK/a.log")"
expect_contains "$(cat "$WORK/a.log")" "leading term=1"
start_ha_controller b "$address"
start_ha_controller c "$address"
wait_until 20 waits b || fail "controller b is not a standby: $(tail -5 "$WORK/b.log")"
wait_until 20 waits c || fail "controller c is not a standby: $(tail -5 "$WORK/c.log")"
expect_contains "$(cat "$WORK/b.log")" "kv-controller pid $pid_a"
export KV_CONTROLLER="$address" KV_INSECURE=1
start_sim_agent agent-1
start_sim_agent agent-2

# --- the leader dies mid-job
job="$("$kvctl" submit "$KV_SOURCE/deploy/examples/demo-sim.json" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "no job submitted"
running() { grep -q "running" <<<"$("$kvctl" status "$job" 2>/dev/null)"; }
wait_until 60 running || fail "job $job never ran: $("$kvctl" status "$job")"
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

# --- the job completes under the new leader
code=0
out="$("$kvctl" watch "$job" 2>&1)" || code=$?
exit_ok "$code" "$out" || { echo "$out" >&2; tail -20 "$WORK/$new_leader.log" >&2; fail "the job did not end well after the failover"; }
expect_contains "$("$kvctl" status "$job")" "succeeded"
rows_in_files="$(cat "$WORK"/agent-*/scenarios/"$job"/*/requests.jsonl | grep -c .)"
rows_listed="$("$kvctl" results "$job" --requests --output jsonl | grep -c .)"
[ "$rows_listed" = "$rows_in_files" ] ||
  fail "kvctl results --requests lists $rows_listed rows, the agents' requests.jsonl hold $rows_in_files"
psql_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql"
for agent in agent-1 agent-2; do
  seqs="$("$psql_bin" "$pg_dsn" -Atc "SELECT seq FROM events WHERE agent_id = '$agent' ORDER BY seq")"
  [ "$seqs" = "$(seq 1 "$(echo "$seqs" | grep -c .)")" ] || fail "$agent's events are not seqs 1..n once each"
done

# --- the new leader paused past its lease: a standby on another port leads; it wakes and steps down
other="$(free_port)"
for name in b c; do [ "$name" = "$new_leader" ] || kill -TERM "$(eval echo "\$pid_$name")"; done
start_ha_controller d "127.0.0.1:$other"
wait_until 20 waits d || fail "controller d is not a standby: $(tail -5 "$WORK/d.log")"
kill -STOP "$new_pid"
wait_until $((lease_s * 6)) leads d || fail "controller d did not take over: $(tail -5 "$WORK/d.log")"
expect_contains "$(cat "$WORK/d.log")" "leading term=3"
kill -CONT "$new_pid"
code=0
wait "$new_pid" || code=$?
[ "$code" = 5 ] || fail "the woken leader exited $code, not 5: $(tail -5 "$WORK/$new_leader.log")"
expect_contains "$(cat "$WORK/$new_leader.log")" "lost leadership"
expect_contains "$(cat "$WORK/$new_leader.log")" "(term 3)"
expect_contains "$(KV_CONTROLLER="127.0.0.1:$other" "$kvctl" status "$job")" "succeeded"
echo "PASS"
