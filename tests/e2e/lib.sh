# Shared helpers of the e2e scripts. They run the real binaries from $KV_BIN (set by CTest) and
# read fixtures from $KV_SOURCE; each test works in its own temp dir, removed on exit (kept, and
# named, when KV_E2E_KEEP=1: the daemons' logs of a failing run).
set -euo pipefail
: "${KV_BIN:?KV_BIN must point at build/bin}"
: "${KV_SOURCE:?KV_SOURCE must point at the source tree}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kvbench-e2e-XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
  if [ "${KV_E2E_KEEP:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_contains TEXT NEEDLE: fails showing TEXT when NEEDLE is not in it.
expect_contains() {
  case "$1" in *"$2"*) ;; *) printf 'FAIL: expected to find: %s\n--- in:\n%s\n' "$2" "$1" >&2; exit 1;; esac
}

# End-to-end tests check plumbing, and a host that could not keep up (a neighbour's build, a
# sim_time_scale too small for it) makes a comparison invalid by design: host_saturated
# (controller/results/host_saturation.h), beside the reasons and notes the verdict would
# otherwise have had. These two accept that in place of the verdict or exit code a test checks,
# and say so; tests/e2e/host_saturated.sh checks the reason itself.
#
# expect_verdict TEXT GROUP VERDICT: kvctl's "comparison GROUP: VERDICT" is in TEXT, or it says
# "comparison GROUP: invalid" with a host_saturated reason.
expect_verdict() {
  case "$1" in *"comparison $2: $3"*) return 0 ;; esac
  case "$1" in
    *"comparison $2: invalid"*"host_saturated: "*)
      echo "note: comparison $2 is invalid with host_saturated (the host did not keep up);" \
        "its $3 verdict is not checked" >&2
      return 0 ;;
  esac
  expect_contains "$1" "comparison $2: $3"
}

# exit_ok CODE TEXT [WANT]: kvctl's exit CODE is WANT (default 0), or 8 (an invalid comparison)
# with a host_saturated reason in its output TEXT.
exit_ok() {
  [ "$1" = "${3:-0}" ] && return 0
  [ "$1" = 8 ] && case "$2" in *"host_saturated: "*) true ;; *) false ;; esac && {
    echo "note: kvctl exited 8 with host_saturated (the host did not keep up)" >&2
    return 0
  }
  return 1
}

# wait_until SECONDS COMMAND...: polls COMMAND until it succeeds, failing after SECONDS.
# run_demo_variant NAME JQ_FILTER: deploy/examples/demo-sim.json changed by JQ_FILTER and named
# NAME, run by kvctl run into $WORK/NAME; its stdout in $WORK/NAME.out, stderr in $WORK/NAME.err,
# exit status in $WORK/NAME.code, the job's folder in $WORK/NAME.dir. Never fails by itself: the
# caller judges the exit status.
run_demo_variant() {
  jq "$2 | .name = \"$1\"" "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/$1.json"
  local code=0
  "$KV_BIN/kvctl" run "$WORK/$1.json" --out "$WORK/$1" 2>"$WORK/$1.err" > "$WORK/$1.out" || code=$?
  echo "$code" > "$WORK/$1.code"
  ls -d "$WORK/$1/$1"-* > "$WORK/$1.dir"
}

wait_until() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# start_controller EXTRA_JSON: a real kv-controller on loopback (insecure, ports it picks, data in
# $WORK/controller) with EXTRA_JSON's fields added, e.g. '"heartbeat_timeout_s": 2'; waits until
# it serves, then sets $address and $metrics_url and exports KV_CONTROLLER and KV_INSECURE.
start_controller() {
  cat > "$WORK/controller.json" <<JSON
{"listen_address": "127.0.0.1:0", "data_dir": "$WORK/controller", "insecure": true,
 "metrics_listen": "127.0.0.1:0", $1}
JSON
  # A restart keeps the last controller's log beside (controller.log.1, .2, ...) and starts from an
  # empty file here, before the launch: truncated by the child's redirection, the old file's
  # "started" lines could pass the wait below and then vanish under sed (an empty address: kvctl's
  # "no controller" after a restart, 1 run in 4 on a loaded machine).
  if [ -e "$WORK/controller.log" ]; then
    local rotated=1
    while [ -e "$WORK/controller.log.$rotated" ]; do rotated=$((rotated + 1)); done
    mv "$WORK/controller.log" "$WORK/controller.log.$rotated"
  fi
  : >"$WORK/controller.log"
  "$KV_BIN/kv-controller" --config "$WORK/controller.json" 2>>"$WORK/controller.log" &
  PIDS+=($!)
  # Both lines: "metrics url=" comes first, "controller started listen=" once it serves (reading
  # the address after the first alone gave an empty one on a loaded machine).
  started() { grep -qs "controller started listen=" "$WORK/controller.log" &&
    grep -qs "metrics url=" "$WORK/controller.log"; }
  wait_until 20 started || { cat "$WORK/controller.log" >&2; fail "kv-controller did not start"; }
  address="$(sed -n 's/.*controller started listen=\([^ ]*\).*/\1/p' "$WORK/controller.log")"
  metrics_url="$(sed -n 's/.*metrics url=\([^ ]*\).*/\1/p' "$WORK/controller.log")"
  export KV_CONTROLLER="$address" KV_INSECURE=1
}

# start_sim_agent ID [PROFILES_DIR]: a kv-agent named ID connected to start_controller's
# controller (insecure, PROFILES_DIR or the repository's profiles, the demo's datasets as its
# mirror), logging to $WORK/ID.log; waits until the controller lists it connected.
start_sim_agent() {
  cat > "$WORK/$1.json" <<JSON
{"agent_id": "$1", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/$1", "profiles_dir": "${2:-$KV_SOURCE/deploy/profiles}",
 "dataset_cache_dir": "$WORK/$1-datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "nvme_cache_dir": "$WORK/$1-nvme",
 "metrics_listen": "127.0.0.1:0", "heartbeat_interval_s": 1}
JSON
  "$KV_BIN/kv-agent" --config "$WORK/$1.json" 2>>"$WORK/$1.log" &
  PIDS+=($!)
  agent_connected() {
    [ "$("$KV_BIN/kvctl" agents --output json |
      jq --arg id "$1" '[.[] | select(.capabilities.agent_id == $id and .state == "AGENT_STATE_CONNECTED")] | length')" = 1 ]
  }
  wait_until 20 agent_connected "$1" || fail "agent $1 did not connect: $(tail -5 "$WORK/$1.log")"
}

# expect_contiguous_events AGENT_ID: the agent's events reached start_controller's controller
# once each, seqs contiguous from 1 (the event stream neither loses nor duplicates across faults).
expect_contiguous_events() {
  python3 - "$WORK/controller/controller.db" "$1" <<'PY' || fail "$1's event seqs are not contiguous from 1"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
seqs = [row[0] for row in db.execute("SELECT seq FROM events WHERE agent_id = ? ORDER BY seq", (sys.argv[2],))]
assert seqs == list(range(1, len(seqs) + 1)), (seqs[:5], len(seqs))
assert len(seqs) > 10, len(seqs)
PY
}

# start_prometheus CONFIG: a real Prometheus with CONFIG on a free port (it cannot report the port
# of :0, so a few random ones are tried); waits until it is ready, then sets $prometheus_url,
# $prometheus_pid and $port.
start_prometheus() {
  local attempt pid
  prometheus_url=""
  for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    prometheus --config.file="$1" --storage.tsdb.path="$WORK/tsdb" \
      --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
      >"$WORK/prometheus.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    prometheus_ready() {
      kill -0 "$pid" 2>/dev/null || return 0  # exited: stop waiting
      curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null
    }
    wait_until 60 prometheus_ready ||
      fail "Prometheus not ready in 60 s: $(tail -5 "$WORK/prometheus.log")"
    if kill -0 "$pid" 2>/dev/null; then
      prometheus_url="http://127.0.0.1:$port"
      prometheus_pid="$pid"
      return 0
    fi
    grep -q "address already in use" "$WORK/prometheus.log" ||
      fail "Prometheus exited: $(tail -5 "$WORK/prometheus.log")"
  done
  fail "no free port for Prometheus after 5 tries"
}

# pooled_ttft_p95 SCALE FILE...: the TTFT p95 of every successful request of the requests.jsonl
# FILEs pooled (a cell's repeats), in simulated seconds (observed / SCALE, the result's
# sim_time_scale), as stats::Percentile computes it: linear between the closest ranks.
pooled_ttft_p95() {
  local scale="$1"
  shift
  cat "$@" | jq -s --argjson scale "$scale" '
    [.[] | select(.error == null and .ttft_s != null) | .ttft_s / $scale] | sort as $x
    | ($x | length) as $n | (($n - 1) * 0.95) as $h | ($h | floor) as $f
    | if $f + 1 < $n then $x[$f] + ($h - $f) * ($x[$f + 1] - $x[$f]) else $x[$f] end'
}

# start_postgres: a real PostgreSQL server for this test (Debian's, deploy/setup.sh): initdb in
# $WORK/pg, listening on a Unix socket there only (no TCP), trust authentication for user kvbench.
# The server refuses root, so under root it runs as the `postgres` system user (else nobody);
# setpriv --pdeathsig makes it quit with this script. Sets $pg_dsn, $pg_pid and writes the DSN to
# $WORK/pg.dsn (mode 0600, as the controller demands of a file that may hold a password).
start_postgres() {
  local user
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -x "$pg_bin/initdb" ] || fail "no PostgreSQL server: install postgresql (deploy/setup.sh)"
  pg_run_as=()
  if [ "$(id -u)" = 0 ]; then
    user=postgres; id "$user" >/dev/null 2>&1 || user=nobody
    pg_run_as=(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups)
  fi
  mkdir -p "$WORK/pg"
  # The server user passes through $WORK (mode 0700 from mktemp) to its own folder: traverse only.
  [ "$(id -u)" = 0 ] && chmod o+x "$WORK" && chown "$user" "$WORK/pg"
  chmod 0700 "$WORK/pg"
  "${pg_run_as[@]}" "$pg_bin/initdb" -D "$WORK/pg/data" -U kvbench --auth=trust -E UTF8 --no-locale \
    >"$WORK/pg/initdb.log" 2>&1 || fail "initdb failed: $(tail -5 "$WORK/pg/initdb.log")"
  pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  pg_dsn="host=$WORK/pg port=$pg_port user=kvbench dbname=postgres"
  resume_postgres
  (umask 077 && echo "$pg_dsn" > "$WORK/pg.dsn")
}

# resume_postgres: start_postgres's server started (again) on its data and port; waits until it
# accepts connections. Sets $pg_pid.
resume_postgres() {
  "${pg_run_as[@]}" --pdeathsig SIGQUIT "$pg_bin/postgres" -D "$WORK/pg/data" -k "$WORK/pg" \
    -c listen_addresses= -p "$pg_port" >>"$WORK/pg/postgres.log" 2>&1 &
  pg_pid=$!
  PIDS+=("$pg_pid")
  pg_ready() { "$pg_bin/pg_isready" -q -h "$WORK/pg" -p "$pg_port"; }
  wait_until 30 pg_ready || fail "PostgreSQL not ready in 30 s: $(tail -5 "$WORK/pg/postgres.log")"
}

# stop_postgres: start_postgres's server stopped (fast shutdown: open sessions are ended, what
# was committed stays); returns once it has exited.
stop_postgres() {
  kill -INT "$pg_pid"
  wait "$pg_pid" 2>/dev/null || true
}

# expect_rows_match_agents JOB: every request row the controller holds for JOB (kvctl results
# --requests, through $KV_CONTROLLER) equals, field by field and in order, the row its agent wrote
# to $WORK/AGENT/scenarios/JOB/SCENARIO/requests.jsonl, and every such file is accounted for: no
# row lost, none stored twice. Prints the row count.
expect_rows_match_agents() {
  "$KV_BIN/kvctl" results "$1" --requests > "$WORK/$1.requests.jsonl" ||
    fail "kvctl results $1 --requests failed"
  python3 - "$WORK" "$1" <<'PY' || fail "the controller's request rows of $1 differ from the agents' files"
import glob, json, os, sys
work, job = sys.argv[1], sys.argv[2]
exported = [json.loads(line) for line in open(f"{work}/{job}.requests.jsonl")]
by_file = {}
for row in exported:
    path = f"{work}/{row['agent_id']}/scenarios/{job}/{row['scenario_id']}/requests.jsonl"
    by_file.setdefault(path, []).append(row)
on_disk_files = set(glob.glob(f"{work}/*/scenarios/{job}/*/requests.jsonl"))
assert set(by_file) == on_disk_files, (sorted(set(by_file) ^ on_disk_files))
keys = ["user_id", "session_id", "round", "scheduled_s", "sent_s", "first_token_s", "end_s",
        "ttft_s", "prompt_tokens", "output_tokens", "cached_tokens", "http_status", "error", "attempts"]
for path, rows in by_file.items():
    on_disk = [json.loads(line) for line in open(path) if line.strip()]
    assert len(on_disk) == len(rows) > 0, (path, len(on_disk), len(rows))
    assert [[r[k] for k in keys] for r in on_disk] == [[r[k] for k in keys] for r in rows], path
print(len(exported))
PY
}

# expect_pg_events_once AGENT...: each AGENT's events are in start_postgres's store once each,
# seqs 1..n (the event stream neither lost nor duplicated one across the faults).
expect_pg_events_once() {
  local agent seqs
  for agent in "$@"; do
    seqs="$("$pg_bin/psql" "$pg_dsn" -Atc "SELECT seq FROM events WHERE agent_id = '$agent' ORDER BY seq")"
    [ -n "$seqs" ] || fail "$agent has no events in the store"
    [ "$seqs" = "$(seq 1 "$(grep -c . <<<"$seqs")")" ] || fail "$agent's events are not seqs 1..n once each"
  done
}

# start_ha_controller NAME [EXTRA_JSON [LISTEN]]: a controller on start_postgres's store at LISTEN
# or its own free port ($addr_NAME), lease $lease_s seconds, with EXTRA_JSON's fields (default:
# a heartbeat timeout of 15 s), logging to $WORK/NAME.log; sets pid_NAME.
# `leads NAME` / `waits NAME`: its log says it leads / waits as a standby.
start_ha_controller() {
  local listen="${3:-}"
  [ -n "$listen" ] ||
    listen="127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  printf -v "addr_$1" '%s' "$listen"
  cat > "$WORK/$1.json" <<JSON
{"listen_address": "$listen", "data_dir": "$WORK/$1", "insecure": true, "metrics_listen": "127.0.0.1:0",
 ${2:-\"heartbeat_timeout_s\": 15},
 "store": {"postgresql": {"dsn_file": "$WORK/pg.dsn", "lease_s": ${lease_s:-5}}}}
JSON
  "$KV_BIN/kv-controller" --config "$WORK/$1.json" 2>"$WORK/$1.log" &
  PIDS+=($!)
  printf -v "pid_$1" '%s' "$!"
}
leads() { grep -q "controller started listen=" "$WORK/$1.log"; }
waits() { grep -q "standby: the leader is" "$WORK/$1.log"; }

# write_fan_out_spec NAME [SIM_TIME_SCALE [SESSIONS]]: $WORK/NAME.json, the demo's spec on tiers
# GPU and CPU_RAM at concurrency 2, fanned out to every agent, waiting up to 120 s for a busy one.
write_fan_out_spec() {
  python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/$1.json" "$1" "${2:-}" "${3:-}" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name=sys.argv[3], tiers=["GPU", "CPU_RAM"], concurrency=[2])
spec["placement"] = {"fan_out": "FAN_OUT_EACH", "agent_wait_s": 120}
if sys.argv[4]:
    spec["engine_overrides"] = dict(spec["engine_overrides"], sim_time_scale=float(sys.argv[4]))
if sys.argv[5]:
    spec["sessions"] = int(sys.argv[5])
json.dump(spec, open(sys.argv[2], "w"))
PY
}
