#!/usr/bin/env bash
# One daemon per port and per folder: a second kv-controller on the first's
# port or data_dir, a second kv-agent on the first's work_dir and a second `kvctl run` on the
# first's --out folder each refuse to start, saying who holds it, and touch nothing of the first
# (before, gRPC's SO_REUSEPORT let two controllers split the calls between two stores, and a
# second agent's orphan sweep killed the first one's replicas). A lock dies with its holder:
# after kill -9 the folder is free again, with no stale lock to clean up.
source "$(dirname "$0")/lib.sh"

controller_config() {  # controller_config FILE LISTEN DATA_DIR
  cat > "$1" <<CONFIG
{"listen_address": "$2", "data_dir": "$3", "insecure": true, "metrics_listen": "127.0.0.1:0"}
CONFIG
}
agent_config() {  # agent_config FILE AGENT_ID
  cat > "$1" <<CONFIG
{"agent_id": "$2", "controller_address": "127.0.0.1:1", "insecure": true,
 "work_dir": "$WORK/agent-work", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "metrics_listen": "127.0.0.1:0"}
CONFIG
}
# refused NAME CODE NEEDLE COMMAND...: COMMAND exits CODE within 20 s, saying NEEDLE.
refused() {
  local name=$1 want=$2 needle=$3; shift 3
  local code=0
  timeout 20 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || code=$?
  [ "$code" = "$want" ] || { cat "$WORK/$name.err"; fail "$name exited $code, want $want"; }
  expect_contains "$(cat "$WORK/$name.err")" "$needle"
}

# --- kv-controller: the first one holds its port and its data_dir.
controller_config "$WORK/first.json" 127.0.0.1:0 "$WORK/data-1"
"$KV_BIN/kv-controller" --config "$WORK/first.json" 2>"$WORK/first.log" &
first=$!
PIDS+=("$first")
wait_until 20 grep -qs "controller started" "$WORK/first.log" ||
  { cat "$WORK/first.log"; fail "the first controller never started"; }
address="$(sed -n 's/.*controller started listen=\([^ ]*\).*/\1/p' "$WORK/first.log")"
expect_contains "$(cat "$WORK/data-1/.lock")" "$first kv-controller"

# Its port, with another data_dir: refused, naming the holder (exit 4, unavailable).
controller_config "$WORK/same-port.json" "$address" "$WORK/data-2"
refused same-port 4 "cannot listen on $address: in use by pid $first (kv-controller)" \
  "$KV_BIN/kv-controller" --config "$WORK/same-port.json"
# Its data_dir, on another port: refused before the store opens (exit 5, failed precondition).
controller_config "$WORK/same-dir.json" 127.0.0.1:0 "$WORK/data-1"
refused same-data-dir 5 \
  "data_dir $WORK/data-1 is in use by pid $first (kv-controller): one kv-controller per folder" \
  "$KV_BIN/kv-controller" --config "$WORK/same-dir.json"
# The first one still answers, with its own store.
"$KV_BIN/kvctl" jobs --controller "$address" --insecure >/dev/null ||
  fail "the first controller stopped answering"
kill -0 "$first" || fail "the first controller is gone"

# kill -9 leaves no stale lock: the data_dir takes a new controller at once.
kill -KILL "$first"
wait "$first" 2>/dev/null || true
"$KV_BIN/kv-controller" --config "$WORK/same-dir.json" 2>"$WORK/after.log" &
after=$!
PIDS+=("$after")
wait_until 20 grep -qs "controller started" "$WORK/after.log" ||
  { cat "$WORK/after.log"; fail "the data_dir stayed locked after kill -9 of its controller"; }
kill -TERM "$after"
wait "$after" || fail "the controller after kill -9 exited $?"

# --- kv-agent: the first one holds its work_dir; a replica it started (a process group leader
# with its pid file in run/) must survive the second agent.
agent_config "$WORK/agent-1.json" first-agent
"$KV_BIN/kv-agent" --config "$WORK/agent-1.json" 2>"$WORK/agent-1.log" &
agent=$!
PIDS+=("$agent")
wait_until 20 grep -qs "metrics url=" "$WORK/agent-1.log" ||
  { cat "$WORK/agent-1.log"; fail "the first agent never started"; }
setsid sleep 300 &
replica=$!
PIDS+=("$replica")
echo "$replica" > "$WORK/agent-work/run/replica-0.pid"
agent_config "$WORK/agent-2.json" second-agent
refused same-work-dir 5 \
  "work_dir $WORK/agent-work is in use by pid $agent (kv-agent): one kv-agent per folder" \
  "$KV_BIN/kv-agent" --config "$WORK/agent-2.json"
kill -0 "$replica" || fail "the second agent killed the first one's replica"
[ -f "$WORK/agent-work/run/replica-0.pid" ] || fail "the second agent removed the first's pid file"
kill -0 "$agent" || fail "the first agent is gone"
kill -TERM "$agent"
wait "$agent" || fail "the first agent exited $? after SIGTERM"

# --- kvctl run: one run per --out folder; the second one submits and writes nothing.
python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="first-run", tiers=["GPU"], concurrency=[2], sessions=8)
spec["engine_overrides"]["sim_time_scale"] = 1.0
json.dump(spec, open(sys.argv[2], "w"))
PY
unset KV_DATASET_MIRROR KV_DATASET_CACHE
cd "$WORK"
"$KV_BIN/kvctl" run spec.json --out results >run.out 2>run.err &
run=$!
PIDS+=("$run")
replaying() { grep -Eq '^00-gpu-c2 +replay' run.out; }
wait_until 120 replaying || { cat run.out run.err >&2; fail "the first run never reached its replay"; }
refused second-run 5 "results/.run is in use by pid $run (kvctl run): one kvctl run per folder" \
  "$KV_BIN/kvctl" run spec.json --out results
jobs_in_out="$(find results -maxdepth 1 -name 'first-run-*' | wc -l)"
[ "$jobs_in_out" = 1 ] || fail "the refused run left a job folder: $(ls results)"
kill -INT "$run"
code=0
wait "$run" || code=$?
[ "$code" = 7 ] || { cat run.out run.err >&2; fail "the first run exited $code, want 7 (cancelled)"; }
echo "PASS"
