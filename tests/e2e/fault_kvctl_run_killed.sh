#!/usr/bin/env bash
# kvctl run killed with -9 mid-replay of a CPU_RAM scenario on 2 replicas
# (a dropped SSH session's SIGKILL, an OOM kill). Before, its replicas, cache server, Caddy and
# kv-runner ran on. Now every child gets SIGTERM the moment kvctl dies (parent-death signal), and
# nothing is left: checked by the pid files of <out>/.run and by process name.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
jq '.name = "killed" | .tiers = ["CPU_RAM"] | .concurrency = [2] | .sessions = 8
    | .engine_overrides.sim_time_scale = 1.0' \
  "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/spec.json"
"$kvctl" run "$WORK/spec.json" --out "$WORK/out" > "$WORK/run.out" 2> "$WORK/run.err" &
pid=$!
PIDS+=("$pid")
runner_pid_file="$WORK/out/.run/kv-runner.pid"
wait_until 90 test -s "$runner_pid_file" ||
  { cat "$WORK/run.out" "$WORK/run.err" >&2; fail "kv-runner has no pid file"; }
children=()
for file in "$WORK"/out/.run/*.pid; do children+=("$(head -n 1 "$file")"); done
# kv-runner, the cache server, 2 replicas and Caddy.
[ "${#children[@]}" -ge 5 ] || fail "expected 5 pid files: $(ls "$WORK/out/.run")"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
gone() { for child in "${children[@]}"; do kill -0 "$child" 2>/dev/null && return 1; done; return 0; }
wait_until 30 gone ||
  fail "children of the killed kvctl outlived it: $(ps -o pid,stat,args -p "$(IFS=,; echo "${children[*]}")")"
leftover="$(pgrep -f "$WORK/out" || true)"
[ -z "$leftover" ] || fail "processes left: $(ps -o pid,args -p "${leftover//$'\n'/,}")"
echo "PASS"
