#!/usr/bin/env bash
# The control plane as operators run it: a real kv-controller and two real kv-agents on loopback
# (insecure, as deploy/examples/*-local.json), the demo job submitted and watched with kvctl, the
# scenarios run on the simulators behind real Caddy and spread over both agents; then kvctl
# results prints, for every scenario, the numbers the agent computed in its result.json (the
# file `kvctl run`'s table is printed from, through the same table code).
# With KV_E2E_STORE=postgresql (e2e.controller_cluster_postgresql) the controller keeps its store
# on a real PostgreSQL server the test starts, and the same checks hold; the request rows are then
# counted in PostgreSQL against the agents' requests.jsonl.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
store_engine="${KV_E2E_STORE:-sqlite}"

# --- the controller, on a port it picks
store_json=""
if [ "$store_engine" = postgresql ]; then
  start_postgres
  store_json=", \"store\": {\"postgresql\": {\"dsn_file\": \"$WORK/pg.dsn\"}}"
fi
cat > "$WORK/controller.json" <<JSON
{"listen_address": "127.0.0.1:0", "data_dir": "$WORK/controller", "insecure": true,
 "metrics_listen": "127.0.0.1:0", "heartbeat_timeout_s": 15$store_json}
JSON
"$KV_BIN/kv-controller" --config "$WORK/controller.json" 2>"$WORK/controller.log" &
PIDS+=($!)
controller_pid=$!
started() { grep -q "controller started listen=" "$WORK/controller.log"; }
wait_until 20 started || { cat "$WORK/controller.log" >&2; fail "kv-controller did not start"; }
address="$(sed -n 's/.*controller started listen=\([^ ]*\).*/\1/p' "$WORK/controller.log" | head -1)"
expect_contains "$(cat "$WORK/controller.log")" "insecure mode"
export KV_CONTROLLER="$address" KV_INSECURE=1

# --- two agents, both with an NVMe cache dir (which they create). agent-1 is the README's
# loopback agent: deploy/examples/agent-local.json as shipped (its profiles and dataset mirror
# relative to the file), only its ports and /tmp folders moved into this test's own; agent-2 has
# a config with absolute paths.
mkdir -p "$WORK/examples"
ln -s "$KV_SOURCE/deploy/profiles" "$WORK/profiles"
ln -s "$KV_SOURCE/deploy/examples/datasets" "$WORK/examples/datasets"
sed -e "s|127.0.0.1:7070|$address|" -e "s|127.0.0.1:9464|127.0.0.1:0|" \
  -e "s|/tmp/kvbench/agent|$WORK/agent-1|" -e "s|/tmp/kvbench/nvme-cache|$WORK/nvme-1|" \
  -e "s|/tmp/kvbench/datasets|$WORK/datasets-1|" -e 's|"local-agent"|"agent-1"|' \
  "$KV_SOURCE/deploy/examples/agent-local.json" > "$WORK/agent-1.json"
grep -q '"profiles_dir": "../profiles"' "$WORK/agent-1.json" || fail "agent-local.json changed shape"
cp "$WORK/agent-1.json" "$WORK/examples/agent-local.json"
cat > "$WORK/agent-2.json" <<JSON
{"agent_id": "agent-2", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/agent-2", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "dataset_cache_dir": "$WORK/datasets-2", "dataset_mirror": "$KV_DEMO_DATASETS",
 "nvme_cache_dir": "$WORK/nvme-2", "metrics_listen": "127.0.0.1:0", "child_stop_grace_s": 5}
JSON
(cd / && exec "$KV_BIN/kv-agent" --config "$WORK/examples/agent-local.json") 2>"$WORK/agent-1.log" &
PIDS+=($!)
"$KV_BIN/kv-agent" --config "$WORK/agent-2.json" 2>"$WORK/agent-2.log" &
PIDS+=($!)
two_connected() { [ "$("$kvctl" agents 2>/dev/null | grep -cw connected)" -eq 2 ]; }
wait_until 20 two_connected || { "$kvctl" agents >&2 || true; cat "$WORK"/agent-*.log >&2; fail "agents did not connect"; }

# --- submit and watch to the end
code=0
out="$("$kvctl" submit "$KV_SOURCE/deploy/examples/demo-sim.json" --watch 2>"$WORK/submit.err")" ||
  code=$?
exit_ok "$code" "$out" || {
  echo "$out" >&2; cat "$WORK/submit.err" "$WORK/controller.log" "$WORK"/agent-*.log >&2
  fail "kvctl submit --watch did not succeed"; }
job="$(echo "$out" | sed -n 's/^job \([^:]*\):.*/\1/p' | head -1)"
[ -n "$job" ] || fail "no job id in: $out"
expect_contains "$out" "replay"
expect_verdict "$out" c16 valid
status="$("$kvctl" status "$job")"
expect_contains "$status" "succeeded"
# A finished job's scenarios say done with their final counts, never "teardown 0/32".
expect_contains "$status" "$("$kvctl" status "$job" --output json | jq -r '.scenarios | length') of $("$kvctl" status "$job" --output json | jq -r '.scenarios | length') scenarios ended"
rows="$(echo "$status" | awk '$1 ~ /^[0-9][0-9]-/ && $4 == "succeeded" { split($8, s, "/"); split($10, r, "/"); print $7, s[1], s[2], r[1], r[2] }')"
[ "$(echo "$rows" | grep -c .)" -eq "$("$kvctl" status "$job" --output json | jq '.scenarios | length')" ] ||
  fail "not every scenario row reads succeeded with its progress: $status"
while read -r phase done total req_done req_total; do
  [ "$phase" = done ] || fail "a finished scenario's phase is $phase: $status"
  [ "$done" = "$total" ] && [ "$req_done" = "$req_total" ] && [ "$req_total" -gt 0 ] ||
    fail "a finished scenario shows $done/$total sessions, $req_done/$req_total requests: $status"
done <<< "$rows"
expect_contains "$("$kvctl" jobs)" "$job"

# Both agents ran part of the sweep.
for n in 1 2; do
  [ -n "$(ls "$WORK/agent-$n/scenarios/$job" 2>/dev/null)" ] || fail "agent-$n ran no scenario"
done

# --- kvctl results shows what the agents computed
table="$("$kvctl" results "$job")"
echo "$table"
# The simulated engine's figures are shown in simulated time (result.json's simulated_latency).
number() { jq ".simulated_latency.$1" "$2"; }
for spec in 00:GPU:2 01:CPU_RAM:2 02:NVME:2 03:GPU:16 04:CPU_RAM:16 05:NVME:16; do
  IFS=: read -r index tier users <<<"$spec"
  result="$(ls "$WORK"/agent-*/scenarios/"$job"/"$index"-*/result.json 2>/dev/null | head -1)"
  [ -s "$result" ] || fail "no result.json for scenario $index"
  p50="$(awk -v s="$(number ttft_p50_s "$result")" 'BEGIN { printf "%.1f", s * 1000 }')"
  p95="$(awk -v s="$(number ttft_p95_s "$result")" 'BEGIN { printf "%.1f", s * 1000 }')"
  rps="$(awk -v s="$(number requests_per_s "$result")" 'BEGIN { printf "%.2f", s }')"
  grep -Eq "^ *$users +$tier +32/32 +$p50 +$p95 +[-+0-9%]+ +$rps +0 +.* +ok +[a-z_,-]+ *$" <<<"$table" ||
    fail "kvctl results has no row '$users $tier 32/32 $p50 $p95 ... $rps 0 ok' (from $result)"
done
csv="$("$kvctl" results "$job" --output csv)"
[ "$(echo "$csv" | wc -l)" -eq 7 ] || fail "csv is not a header and 6 rows: $csv"
expect_contains "$("$kvctl" results "$job" --output json)" '"ttft_p50_s"'

# --- where the store is: PostgreSQL holds every request row the agents recorded, once; no
# SQLite file was made beside it.
if [ "$store_engine" = postgresql ]; then
  [ ! -e "$WORK/controller/controller.db" ] || fail "a PostgreSQL-backed controller wrote controller.db"
  psql_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql"
  in_postgres="$(PGAPPNAME=e2e "$psql_bin" "$pg_dsn" -Atc "SELECT COUNT(*) FROM requests WHERE job_id = '$job'")"
  [ "$in_postgres" -gt 0 ] || fail "no request chunks in PostgreSQL for $job"
  rows_in_files="$(cat "$WORK"/agent-*/scenarios/"$job"/*/requests.jsonl | grep -c .)"
  rows_listed="$("$kvctl" results "$job" --requests --output jsonl 2>/dev/null | grep -c . || true)"
  [ "$rows_listed" = "$rows_in_files" ] ||
    fail "kvctl results --requests lists $rows_listed rows, the agents' requests.jsonl hold $rows_in_files"
fi

# --- a job that cannot be found, and a controller that is gone
set +e
"$kvctl" status no-such-job >/dev/null 2>"$WORK/missing.err"; code=$?
set -e
[ "$code" -ne 0 ] || fail "status of an unknown job succeeded"
expect_contains "$(cat "$WORK/missing.err")" "no-such-job"
kill -TERM "$controller_pid"
wait "$controller_pid" || fail "kv-controller did not stop cleanly on SIGTERM"
expect_contains "$(cat "$WORK/controller.log")" "controller stopped"
echo "PASS"
