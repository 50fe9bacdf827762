#!/usr/bin/env bash
# kv-agent and kv-controller as an operator runs them: --validate_config on good and bad
# configs, start, /metrics served, clean stop on SIGTERM.
source "$(dirname "$0")/lib.sh"

cat > "$WORK/agent.json" <<CONFIG
{"agent_id": "e2e-agent", "controller_address": "127.0.0.1:7070", "insecure": true,
 "work_dir": "$WORK/agent-work", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "metrics_listen": "127.0.0.1:0"}
CONFIG
cat > "$WORK/controller.json" <<CONFIG
{"listen_address": "127.0.0.1:0", "data_dir": "$WORK/controller-data", "insecure": true,
 "metrics_listen": "127.0.0.1:0"}
CONFIG
cat > "$WORK/bad-agent.json" <<'CONFIG'
{"work_dir": "", "profiles_dir": "/p", "heartbeat_interval_s": -5, "colour": "red"}
CONFIG

# --validate_config prints the effective config (defaults filled in) and exits 0.
effective="$("$KV_BIN/kv-agent" --config "$WORK/agent.json" --validate_config)"
expect_contains "$effective" '"heartbeat_interval_s": 5'
[ -d "$WORK/agent-work" ] && fail "--validate_config must not create the work dir"

set +e
err="$("$KV_BIN/kv-agent" --config "$WORK/bad-agent.json" --validate_config 2>&1)"; code=$?
set -e
[ "$code" -eq 2 ] || fail "bad agent config exited $code, want 2"
expect_contains "$err" "3 problems"
expect_contains "$err" "colour: unknown field"
expect_contains "$err" 'work_dir: is required'
expect_contains "$err" "heartbeat_interval_s: -5 is out of range"

# run_daemon NAME BINARY CONFIG: starts it, waits for its metrics URL, scrapes, stops it.
run_daemon() {
  local name=$1 binary=$2 config=$3 log="$WORK/$1.log"
  "$binary" --config "$config" 2>"$log" &
  local pid=$!
  PIDS+=("$pid")
  wait_until 20 grep -qs "metrics url=" "$log" || { cat "$log"; fail "$name never served metrics"; }
  local url
  url="$(sed -n 's/.*metrics url=\([^ ]*\).*/\1/p' "$log" | head -n 1)"
  local metrics
  metrics="$(curl -sf "$url")" || fail "$name: cannot scrape $url"
  expect_contains "$metrics" "kvbench_build_info{component=\"$name\""
  expect_contains "$metrics" "kvbench_${name}_uptime_seconds"
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  [ "$code" -eq 0 ] || { cat "$log"; fail "$name exited $code after SIGTERM, want 0"; }
  expect_contains "$(cat "$log")" "$name stopped"
}

run_daemon agent "$KV_BIN/kv-agent" "$WORK/agent.json"
[ -d "$WORK/agent-work/spool" ] || fail "the agent did not lay out its work dir"
expect_contains "$(cat "$WORK/agent.log")" "insecure mode"
mkdir -m 755 "$WORK/controller-data"  # as an operator might: the controller makes it private
run_daemon controller "$KV_BIN/kv-controller" "$WORK/controller.json"
[ -d "$WORK/controller-data" ] || fail "the controller did not create its data dir"
# Data at rest is the daemon user's alone (controller.db, its WAL, the agent's spool,
# logs and records were 0644).
mode() { stat -c %a "$1"; }
[ "$(mode "$WORK/controller-data")" = 700 ] || fail "data_dir is $(mode "$WORK/controller-data")"
[ "$(mode "$WORK/agent-work")" = 700 ] || fail "work_dir is $(mode "$WORK/agent-work")"
for file in "$WORK"/controller-data/controller.db* "$WORK"/agent-work/spool/*; do
  [ -e "$file" ] || continue
  [ "$(( 0$(mode "$file") & 077 ))" = 0 ] || fail "$file is mode $(mode "$file")"
done
[ -e "$WORK/controller-data/controller.db" ] || fail "no controller.db"

for binary in kv-agent kv-controller; do
  expect_contains "$("$KV_BIN/$binary" --help)" "--validate_config"
done
echo "PASS"
