#!/usr/bin/env bash
# kvctl history over ten runs of a schedule, through the real controller and
# agent: the table (one column per run), CSV and JSON agree with each job's own results (in
# simulated seconds: the engine is simulated), --since (a date) / --until / --tier / --agent /
# --concurrency select, and the HTML page rendered by headless Chromium draws one line per tier
# over the runs' times, with readable labelled axes and a point per measured run.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"
browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] ||
  fail "no chromium or chromium-browser on PATH (deploy/setup.sh installs the Debian package chromium)"

start_controller '"heartbeat_timeout_s": 30'
cat > "$WORK/agent.json" <<JSON
{"agent_id": "sim-a", "controller_address": "$address", "insecure": true,
 "work_dir": "$WORK/agent", "profiles_dir": "$KV_SOURCE/deploy/profiles",
 "dataset_cache_dir": "$WORK/datasets", "dataset_mirror": "$KV_DEMO_DATASETS",
 "metrics_listen": "127.0.0.1:0", "labels": {"gpu": "sim"}}
JSON
"$KV_BIN/kv-agent" --config "$WORK/agent.json" 2>"$WORK/agent.log" &
PIDS+=($!)
connected() { grep -qw connected <<<"$("$kvctl" agents 2>/dev/null)"; }
wait_until 20 connected || fail "the agent did not connect"

python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/spec.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="hist", tiers=["GPU", "CPU_RAM"], concurrency=[2], sessions=2, replicas=1)
spec["engine_overrides"]["sim_time_scale"] = 0.01
json.dump(spec, open(sys.argv[2], "w"))
PY
"$kvctl" schedule create hist --spec "$WORK/spec.json" --cron "@yearly" --overlap queue > /dev/null
for run in $(seq 1 10); do
  "$kvctl" schedule run-now hist > /dev/null || fail "run-now $run failed"
done
all_ended() {
  [ "$("$kvctl" jobs --label kvbench.schedule=hist --output json |
    jq '[.jobs[] | select(.state == "JOB_STATE_SUCCEEDED")] | length')" = 10 ]
}
wait_until 240 all_ended || fail "the ten runs did not all succeed: $("$kvctl" jobs --label kvbench.schedule=hist)"

"$kvctl" history hist > "$WORK/table.txt" || fail "history: $(cat "$WORK/table.txt")"
expect_contains "$(cat "$WORK/table.txt")" "latency.ttft_p50_s of schedule hist, 10 runs (oldest first); a simulated engine's times in simulated seconds"
expect_contains "$(cat "$WORK/table.txt")" "RUN  FIRE_TIME"
expect_contains "$(cat "$WORK/table.txt")" "c2 not_exercised"  # each run's verdict (2 users fit the GPU)
header="$(sed -n 3p "$WORK/table.txt")"
expect_contains "$header" "AGENT  TIER     CONCURRENCY  #1"
expect_contains "$header" "#10"
"$kvctl" history hist --output csv > "$WORK/history.csv"
"$kvctl" history hist --output json > "$WORK/history.json"
"$kvctl" history hist --output otava-csv > "$WORK/otava.csv" 2> "$WORK/otava.err" ||
  fail "otava-csv: $(cat "$WORK/otava.err")"
"$kvctl" history hist --html "$WORK/history.html" > /dev/null
# Two users, ten requests a tier: the comparison says its sample is small.
first_job="$(jq -r '.runs[0].job_id' "$WORK/history.json")"
expect_contains "$("$kvctl" compare "$first_job")" "caveat: small sample (GPU 10 requests of 2 users"
# Selection: today's date as --since (and --until) keeps all ten; a tier, the agent and the
# concurrency keep their line; --until before the runs keeps none.
today="$(date -u +%F)"
[ "$("$kvctl" history hist --since "$today" --until "$today" --output json | jq '.runs | length')" = 10 ] ||
  fail "--since/--until $today did not keep the ten runs"
[ "$("$kvctl" history hist --tier cpu_ram --agent sim-a --concurrency 2 --output json |
  jq -c '[.series[] | .tier]')" = '["CPU_RAM"]' ] || fail "--tier/--agent/--concurrency did not keep one line"
code=0
"$kvctl" history hist --until 2000-01-01 > /dev/null 2> "$WORK/until.err" || code=$?
[ "$code" = 3 ] || fail "--until before every run: exit $code, not 3"
code=0
"$kvctl" history hist --concurrency 64 > /dev/null 2> "$WORK/filter.err" || code=$?
[ "$code" = 3 ] || fail "--concurrency 64: exit $code, not 3"
expect_contains "$(cat "$WORK/filter.err")" "concurrency 2"
# Every CSV value is the job's own result field, for each of the 10 x 2 points.
python3 - "$WORK" "$KV_BIN/kvctl" <<'PY' || fail "history's values differ from the jobs' results"
import csv, json, subprocess, sys
work, kvctl = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{work}/history.csv")))
assert len(rows) == 20, len(rows)
history = json.load(open(f"{work}/history.json"))
assert [s["tier"] for s in history["series"]] == ["GPU", "CPU_RAM"], history["series"]
assert all(len(s["values"]) == 10 for s in history["series"])
for row in rows:
    job = json.loads(subprocess.check_output([kvctl, "results", row["job_id"], "--output", "json"]))
    [scenario] = [s for s in job if s["tier"] == row["tier"]]
    # A simulated engine's history is in simulated seconds, as its results show them.
    assert float(row["value"]) == scenario["result"]["simulated_latency"]["ttft_p50_s"], row
    assert scenario["result"]["simulated_latency"]["ttft_p50_s"] != scenario["result"]["latency"]["ttft_p50_s"]
print("points", len(rows))
PY
# The Otava CSV read back as Otava's CSV importer reads a test (apache/otava otava/importer.py,
# CsvImporter: csv.reader with its default options, the `time` column parsed as a date and time,
# attributes as text, every metric cell through float()): the same ten runs and points as the JSON.
python3 - "$WORK" <<'PY' || fail "the Otava CSV does not read back with the history's points"
import csv, datetime, json, sys
work = sys.argv[1]
history = json.load(open(f"{work}/history.json"))
with open(f"{work}/otava.csv", newline="") as f:
    reader = csv.reader(f, delimiter=",", quotechar='"')
    headers = next(reader)
    rows = list(reader)
columns = [f"{s['agent_id']}.{s['tier']}.c{s['concurrency']}" for s in history["series"]]
assert headers == ["time", "job_id"] + columns, headers
assert len(rows) == len(history["runs"]) == 10, len(rows)
for i, (row, run) in enumerate(zip(rows, history["runs"])):
    assert len(row) == len(headers), row
    when = datetime.datetime.fromisoformat(row[0].replace("Z", "+00:00"))
    assert when.tzinfo is not None and row[0] == run["fire_time"], (row[0], run)
    assert row[1] == run["job_id"], (row[1], run)
    assert [float(v) for v in row[2:]] == [s["values"][i] for s in history["series"]], (i, row)
print("otava points", len(rows) * len(columns))
PY

timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$WORK/chromium-profile" --dump-dom "file://$WORK/history.html" \
  > "$WORK/dom.html" 2>>"$WORK/chromium.err" || { tail -20 "$WORK/chromium.err" >&2; fail "chromium failed"; }
dom="$(cat "$WORK/dom.html")"
expect_contains "$dom" "kvbench history: schedule hist"
for tier in GPU CPU_RAM; do expect_contains "$dom" "data-series=\"$tier"; done
charts="$(grep -o '<svg class="chart" data-points="[0-9]*"' <<<"$dom")"
[ "$charts" = '<svg class="chart" data-points="20"' ] || fail "expected one chart of 20 points: $charts"
grep -Eq 'class="axis-label x-label"[^>]*>fire time \(UTC\)<' <<<"$dom" || fail "no time x-axis label"
grep -Eq "class=\"tick x-tick\".*>[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}<" <<<"$dom" || fail "no time ticks on the x axis"
grep -Eq 'class="axis-label y-label"[^>]*>TTFT p50 \(simulated ms\)<' <<<"$dom" || fail "no readable y-axis label"
! grep -Eq 'https?://|<script' "$WORK/history.html" || fail "the page is not self-contained"
echo "PASS"
