#!/usr/bin/env bash
# Regression alerts through the real processes: a schedule's runs judged by the controller with its
# default settings. Six runs of one spec whose GPU KV cache has room for every conversation
# (16,384 blocks: no eviction, no preemption, so the runs barely vary), then the spec replaced by
# one with a 64th of them (256 blocks: evictions and preemptions at every turn; kvctl schedule
# create --replace: the history goes on) and five more runs. The change is made large on purpose:
# this test checks the plumbing (judgements, alerts, their delivery, the views), not how small a
# change the statistics can see, which tests/unit/controller/regression pins on synthetic rows
# and tests/bench/regression_campaign.sh measures.
# The first slow run (run 7) regresses against the (up to) five before it (a bootstrap diff, its
# numbers recomputed here from the request rows; kvctl diff of the same runs against run 7
# agrees, exit 9) and a later run finds the change point at it, or a run beside it (kvctl status,
# kvctl history's table, JSON and page): 6 + 5 runs let the permutation test reach p = 1/462,
# under the default alpha of 0.01.
# Run 12 is judged against run 1, pinned (kvctl baseline). Every alert reaches a real webhook
# receiver signed (Standard Webhooks), exactly once: the receiver is down (503) while the alerts
# are raised, the controller is killed (-9) with them pending, the receiver comes back, the
# controller restarts and, asked to (kvctl alerts redeliver), delivers each once at once; a second
# restart sends nothing again. With KV_E2E_STORE=postgresql (e2e.regression_alerts_failover) the
# controllers are a leader and a standby on one PostgreSQL: the kill hands the pending alerts to
# the standby, which delivers each once, and the graceful stop hands over to a third. Two hostile
# receivers ride along: one that hangs and one answering with a 1.5 GB body; ops gets its alerts
# regardless, and the controller's memory stays bounded.
# Then a real Prometheus scrapes the controller with
# deploy/prometheus's rules, and every panel query of deploy/grafana's dashboard returns data.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

# The receiver, down (503) for now.
mkdir -p "$WORK/hook"
echo "whsec_$(head -c 24 /dev/urandom | base64)" > "$WORK/secret"
touch "$WORK/hook/unavailable"
"$KV_BIN/kv-webhook-receiver" --secret-file "$WORK/secret" --dir "$WORK/hook" \
  2>"$WORK/receiver.log" &
PIDS+=($!)
wait_until 10 test -s "$WORK/hook/port" || fail "the receiver did not start: $(cat "$WORK/receiver.log")"
# Two hostile receivers beside it: "stuck" holds every request unanswered (3 s timeout), "loud"
# answers with a 1.5 GB error body once told to (DIR/loud). Neither may delay ops's alerts, and
# the controller reads no more of a body than its detail shows.
for receiver in stuck loud; do
  mkdir -p "$WORK/hook-$receiver"
  touch "$WORK/hook-$receiver/unavailable"  # loud: 503 until told to answer loud
  mode=(--hang)
  [ "$receiver" = loud ] && mode=(--loud-bytes 1500000000)
  "$KV_BIN/kv-webhook-receiver" --secret-file "$WORK/secret" --dir "$WORK/hook-$receiver" \
    "${mode[@]}" 2>"$WORK/receiver-$receiver.log" &
  PIDS+=($!)
  wait_until 10 test -s "$WORK/hook-$receiver/port" ||
    fail "the $receiver receiver did not start: $(cat "$WORK/receiver-$receiver.log")"
done
controller_extra="\"heartbeat_timeout_s\": 30,
 \"webhooks\": [{\"name\": \"ops\", \"url\": \"http://127.0.0.1:$(cat "$WORK/hook/port")/hook\",
                 \"secret_file\": \"$WORK/secret\", \"timeout_s\": 5},
                {\"name\": \"stuck\", \"url\": \"http://127.0.0.1:$(cat "$WORK/hook-stuck/port")/hook\",
                 \"secret_file\": \"$WORK/secret\", \"timeout_s\": 3},
                {\"name\": \"loud\", \"url\": \"http://127.0.0.1:$(cat "$WORK/hook-loud/port")/hook\",
                 \"secret_file\": \"$WORK/secret\", \"timeout_s\": 10}],
 \"regression\": {\"resamples\": 1000}"
# A signing secret others can read is refused at start, as a TLS key is, naming the chmod.
chmod 644 "$WORK/secret"
cat > "$WORK/controller-open-secret.json" <<JSON
{"listen_address": "127.0.0.1:0", "data_dir": "$WORK/controller-open-secret", "insecure": true,
 "metrics_listen": "127.0.0.1:0",
 $controller_extra}
JSON
code=0
timeout 20 "$KV_BIN/kv-controller" --config "$WORK/controller-open-secret.json" \
  2>"$WORK/open-secret.log" || code=$?
[ "$code" != 0 ] && [ "$code" != 124 ] || fail "a 0644 webhook secret: kv-controller exited $code"
grep -qF "webhooks[0].secret_file: $WORK/secret can be read by others (mode 0644)" \
  "$WORK/open-secret.log" || fail "a 0644 webhook secret, not named: $(tail -3 "$WORK/open-secret.log")"
chmod 600 "$WORK/secret"
# KV_E2E_STORE=postgresql: two controllers on one PostgreSQL (e2e.regression_alerts_failover),
# where the kill below hands over to the standby instead of a restart.
failover=0
[ "${KV_E2E_STORE:-}" = postgresql ] && failover=1
# controller_serving NAME: the controller NAME of the failover pair serves: $metrics_url and
# $controller_log are its.
controller_serving() {
  wait_until 30 leads "$1" || fail "controller $1 did not lead: $(tail -5 "$WORK/$1.log")"
  wait_until 10 grep -qs "metrics url=" "$WORK/$1.log" || fail "controller $1 has no metrics url"
  metrics_url="$(sed -n 's/.*metrics url=\([^ ]*\).*/\1/p' "$WORK/$1.log")"
  controller_log="$WORK/$1.log"
}
if [ "$failover" = 1 ]; then
  lease_s=5
  start_postgres
  start_ha_controller a "$controller_extra"
  controller_serving a
  start_ha_controller b "$controller_extra"
  wait_until 20 waits b || fail "controller b is not a standby: $(tail -5 "$WORK/b.log")"
  address="$addr_a,$addr_b"
  export KV_CONTROLLER="$address" KV_INSECURE=1
  controller_pid=$pid_a
else
  start_controller "$controller_extra"
  controller_pid=${PIDS[-1]}
  controller_log="$WORK/controller.log"
fi

start_sim_agent sim-a

# spec BLOCKS FILE: the demo at concurrency 16, GPU and CPU_RAM, with BLOCKS GPU KV blocks.
spec() {
  python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$2" "$1" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="nightly", tiers=["GPU", "CPU_RAM"], concurrency=[16], replicas=1)
spec["engine_overrides"]["num_gpu_blocks"] = int(sys.argv[3])
json.dump(spec, open(sys.argv[2], "w"))
PY
}
spec 16384 "$WORK/fast.json"
spec 256 "$WORK/slow.json"
"$kvctl" schedule create nightly --spec "$WORK/fast.json" --cron "0 0 1 1 *" --overlap queue \
  > /dev/null || fail "schedule create failed"

jobs=()
# run_once: fires the schedule now, waits until its job ended and was analyzed.
run_once() {
  local job
  job="$("$kvctl" schedule run-now nightly --output json | jq -r .job_id)"
  [ -n "$job" ] && [ "$job" != null ] || fail "run-now gave no job"
  analyzed() { [ "$("$kvctl" status "$job" --output json | jq -r '.analysis.job_id // ""')" = "$job" ]; }
  wait_until 120 analyzed || { "$kvctl" status "$job" >&2; fail "run ${#jobs[@]} was not analyzed"; }
  [ "$("$kvctl" status "$job" --output json | jq -r .state)" = JOB_STATE_SUCCEEDED ] ||
    fail "run $job did not succeed: $("$kvctl" status "$job")"
  jobs+=("$job")
}
for run in 1 2 3 4 5 6; do run_once; done
"$kvctl" schedule create nightly --spec "$WORK/slow.json" --cron "0 0 1 1 *" --overlap queue \
  --replace > /dev/null || fail "schedule replace failed"
for run in 7 8 9 10 11; do run_once; done

# Run 7 regressed against the runs since the last change point (at most five: runs 2-6), pooled;
# its numbers are the request rows' own. Which TTFT percentile of which tier crosses the band in
# one noisy run varies with the machine (a 64th of the blocks slows both tiers; CI has seen
# GPU p95 or CPU_RAM p95 alone flagged): the checks below follow the first TTFT regression the
# controller found, and there must be one. The sanitized build on a busy machine once found a
# change point among the fast runs (at run 4): the baseline is then runs 4-6, still >= 3 runs.
"$kvctl" status "${jobs[6]}" > "$WORK/status7.txt"
grep -E "judged against|REGRESSION|IMPROVEMENT" "$WORK/status7.txt" || true
for i in 1 2 3 4 5 6; do
  "$kvctl" results "${jobs[$i]}" --requests > "$WORK/requests-$i.jsonl"
  "$kvctl" status "${jobs[$i]}" --output json > "$WORK/job-$i.json"
done
mapfile -t baseline < <(jq -r '.analysis.baseline_jobs[]' "$WORK/job-6.json")
first=$((6 - ${#baseline[@]}))
[ "$(jq -r .analysis.baseline_kind "$WORK/job-6.json")" = segment ] && [ "${#baseline[@]}" -ge 3 ] &&
  [ "${#baseline[@]}" -le 5 ] && [ "${baseline[*]}" = "${jobs[*]:$first:${#baseline[@]}}" ] ||
  fail "run 7's baseline is not 3-5 runs ending at run 6: ${baseline[*]} (runs ${jobs[*]:0:6})"
joined="$(printf ' + %s' "${baseline[@]}")"
expect_contains "$(cat "$WORK/status7.txt")" "judged against ${joined:3} (segment)"
also=()
for job in "${baseline[@]:1}"; do also+=(--baseline-also "$job"); done
read -r tier metric label < <(python3 - "$WORK/job-6.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
found = [(s["tier"], m["metric"]) for s in job["analysis"]["scenarios"] for m in s["metrics"]
         if m["metric"] in ("ttft_p50_s", "ttft_p95_s", "ttft_p99_s") and m["verdict"] == "regression"]
found.sort(key=lambda f: (f[0] != "GPU", f[1] != "ttft_p95_s"))
if found:
    tier, metric = found[0]
    print(tier, metric, metric.split("_")[1])
PY
) || true  # nothing printed: read meets EOF, and the check below names what is missing
[ -n "${tier:-}" ] || fail "run 7 (a 64th of the KV blocks) shows no TTFT regression: $(cat "$WORK/status7.txt")
its analysis: $("$kvctl" status "${jobs[6]}" --output json | jq -c .analysis)"
tier_name="$(tr 'A-Z_' 'a-z-' <<<"$tier")"
expect_contains "$(cat "$WORK/status7.txt")" "REGRESSION nightly: TTFT $label of $tier_name c16 @sim-a +"
python3 - "$WORK" "$tier" "$metric" "$first" <<'PY' || fail "run 7's diff does not match its request rows"
import json, sys
work, tier, metric, first = sys.argv[1:]
p = float(metric.split("_")[1][1:])
def percentile(values, p):  # kvbench's definition (common/stats/percentiles.h)
    values = sorted(values); rank = (len(values) - 1) * p / 100; lower = int(rank)
    if lower + 1 >= len(values): return values[-1]
    return values[lower] + (rank - lower) * (values[lower + 1] - values[lower])
def ttfts(i):
    job = json.load(open(f"{work}/job-{i}.json"))
    [scenario] = [s for s in job["scenarios"] if s["scenario"]["tier"] == tier]
    scale = scenario["result"]["sim_time_scale"]
    rows = [json.loads(l) for l in open(f"{work}/requests-{i}.jsonl")]
    return [r["ttft_s"] / scale for r in rows
            if r["scenario_id"] == scenario["scenario"]["scenario_id"] and r["error"] is None
            and r["ttft_s"] is not None], job
after, job7 = ttfts(6)
[change] = [s for s in job7["analysis"]["scenarios"] if s["tier"] == tier]
# The baseline runs it pooled: those whose host kept up (a saturated one is left out and named in
# the note).
pooled = {run.split("/")[0] for run in change["before_runs"]}
before = sum((ttfts(i)[0] for i in range(int(first), 6) if ttfts(i)[1]["job_id"] in pooled), [])
[got] = [m for m in change["metrics"] if m["metric"] == metric]
want_before, want_after = percentile(before, p), percentile(after, p)
assert abs(got["before"] - want_before) < 1e-9 * want_before, (got["before"], want_before)
assert abs(got["after"] - want_after) < 1e-9 * want_after, (got["after"], want_after)
assert abs(got["change"] - (want_after / want_before - 1) * 100) < 1e-6, got
assert got["verdict"] == "regression" and got["low"] > 0 and got["low"] <= got["change"] <= got["high"], got
print(f"run 7 {tier} {metric} {want_before * 1e3:.1f} -> {want_after * 1e3:.1f} ms (+{got['change']:.1f}%, "
      f"[{got['low']:+.1f}, {got['high']:+.1f}])")
PY

# kvctl diff of the same baseline runs against run 7 says what the controller said, exits 9 and
# writes the report; of run 2 alone against run 7 it withholds the verdict (one run cannot show
# how whole runs vary) and says so.
set +e
"$kvctl" diff "${baseline[0]}" "${jobs[6]}" "${also[@]}" --html "$WORK/diff.html" \
  > "$WORK/diff.txt" 2>"$WORK/diff.err"
rc=$?
set -e
[ "$rc" = 9 ] || fail "kvctl diff exit $rc, not 9: $(cat "$WORK/diff.txt" "$WORK/diff.err")"
expect_contains "$(cat "$WORK/diff.txt")" "before ${baseline[0]} + $((${#baseline[@]} - 1)) more, after ${jobs[6]}"
grep -Eq "^TTFT $label \(ms\) .* regression$" "$WORK/diff.txt" || fail "no TTFT $label regression: $(cat "$WORK/diff.txt")"
expect_contains "$(cat "$WORK/diff.html")" "REGRESSION:"
"$kvctl" diff "${baseline[0]}" "${jobs[6]}" "${also[@]}" --output json > "$WORK/diff.json" || true
python3 - "$WORK" "$tier" "$tier_name" "$metric" <<'PY' || fail "kvctl diff's TTFT $label is not the controller's"
import json, sys
work, tier, tier_name, metric = sys.argv[1:]
diff = json.load(open(f"{work}/diff.json"))
[scenario] = [s for s in diff["scenarios"] if s["tier"] == tier_name]
[got] = [m for m in scenario["metrics"] if m["metric"] == metric]
job7 = json.load(open(f"{work}/job-6.json"))
[change] = [s for s in job7["analysis"]["scenarios"] if s["tier"] == tier]
[want] = [m for m in change["metrics"] if m["metric"] == metric]
for side in ("before", "after", "change"):
    assert abs(got[side] - want[side]) <= 1e-9 * abs(want[side]), (side, got[side], want[side])
assert got["verdict"] == "regression", got
PY
"$kvctl" diff "${jobs[1]}" "${jobs[6]}" > "$WORK/diff-alone.txt" || fail "a withheld diff exits non-zero"
case "$(cat "$WORK/diff-alone.txt")" in
  *"not measured, the host was saturated"*)  # a busy host: not measured, nothing to withhold
    echo "note: run 2 or run 7 had a saturated host: $(grep -o 'not measured, the host.*' "$WORK/diff-alone.txt" | head -1)" ;;
  *)
    expect_contains "$(cat "$WORK/diff-alone.txt")" "note: verdicts withheld"
    expect_contains "$(cat "$WORK/diff-alone.txt")" "inconclusive (would be regression, but only 1 run(s) show how whole runs vary (3 needed))" ;;
esac

# A later run found a change point where the spec changed, with an alert; kvctl status of the run
# that found it, and kvctl history's table, JSON and page mark it. Which metrics and tiers cross
# alpha in 6 + 5 noisy runs varies, and so, by a run, does where: on a loaded machine or the
# sanitized build a neighbour of run 7 can be slow or fast enough that the split lands at run 6 or
# 8 (seen on the ASan+UBSan build: run 7's GPU TTFT p95 only +31%, the points at runs 6 and 8).
# The checks follow the alerted point nearest run 7, within one run of it.
"$kvctl" alerts --output json --limit 1000 > "$WORK/alerts.json"
read -r finder point_job point_run metric < <(python3 - "$WORK/alerts.json" "${jobs[@]}" <<'PY'
import json, sys
alerts, jobs = json.load(open(sys.argv[1]))["alerts"], sys.argv[2:]
points = []
for entry in alerts:
    alert = entry["alert"]
    if alert["kind"] != "ALERT_CHANGE_POINT": continue
    finder, point_job = alert["alert_id"].split("/")[0], alert["alert_id"].split("/")[-1]
    if point_job not in jobs: continue
    run = jobs.index(point_job) + 1
    if abs(run - 7) <= 1: points.append((abs(run - 7), run, finder, point_job, alert["metric"]))
if points:
    _, run, finder, point_job, metric = min(points)
    print(finder, point_job, run, metric)
PY
) || true
[ -n "${metric:-}" ] || fail "no change point alert within a run of run 7: $("$kvctl" alerts)"
echo "change point of $metric at run $point_run, found by $finder"
expect_contains "$("$kvctl" status "$finder")" "from job $point_job (p = "
"$kvctl" history nightly --metric "latency.$metric" --last 11 --output json > "$WORK/history.json"
jq -e --arg job "$point_job" --argjson run "$point_run" \
  'any(.change_points[]; .run == $run and .job_id == $job)' "$WORK/history.json" > /dev/null ||
  fail "history of $metric shows no change point at run $point_run: $(jq -c .change_points "$WORK/history.json")"
expect_contains "$("$kvctl" history nightly --metric "latency.$metric" --last 11)" "run #$point_run $point_job: sim-a "
"$kvctl" history nightly --metric "latency.$metric" --last 11 --html "$WORK/history.html" > /dev/null
expect_contains "$(cat "$WORK/history.html")" 'class="change-point"'
# The alerts raised on the metric are marked on the page and listed in JSON.
if jq -e --arg m "$metric" 'any(.alerts[]; .alert.metric == $m)' "$WORK/alerts.json" > /dev/null; then
  expect_contains "$(cat "$WORK/history.html")" 'class="alert"'
  jq -e '.alerts | length > 0' "$WORK/history.json" > /dev/null || fail "history JSON lists no alert of $metric"
fi

# A pinned baseline: run 12 is judged against run 1 alone (the run-to-run spread still comes from
# the runs since the last change point), then unpinned.
set +e
"$kvctl" baseline set no-such-schedule "${jobs[0]}" 2>"$WORK/baseline.err"; rc=$?
set -e
[ "$rc" = 3 ] || fail "a baseline of an unknown schedule: exit $rc, not 3 (NOT_FOUND)"
expect_contains "$(cat "$WORK/baseline.err")" 'no schedule named "no-such-schedule"'
expect_contains "$("$kvctl" baseline set nightly "${jobs[0]}")" "schedule nightly: baseline ${jobs[0]} (pinned "
run_once
expect_contains "$("$kvctl" status "${jobs[11]}")" "judged against ${jobs[0]} (pinned)"
expect_contains "$("$kvctl" status "${jobs[11]}")" "REGRESSION nightly: "
expect_contains "$("$kvctl" baseline clear nightly)" "schedule nightly: no pinned baseline"

# The receiver was down: every alert is pending, attempted at least once, signed.
alert_count="$("$kvctl" alerts --output json --limit 1000 | jq '.alerts | length')"
[ "$alert_count" -ge 2 ] || fail "expected a diff and a change point alert, got $alert_count"
attempted() { [ -s "$WORK/hook/deliveries.jsonl" ]; }
wait_until 20 attempted || fail "no delivery was attempted"
expect_contains "$("$kvctl" alerts)" "ops pending after"
kill -KILL "$controller_pid"
wait "$controller_pid" 2>/dev/null || true

# Back up: the restarted controller delivers each alert once. The receiver was down long enough for
# the backoff to reach minutes, so the operator asks for the rest now (failed ones too, should
# any have run out of attempts); an unknown webhook is refused by name.
rm "$WORK/hook/unavailable"
touch "$WORK/hook-loud/loud"
if [ "$failover" = 1 ]; then
  controller_serving b  # the standby leads within the lease, with every alert still pending
  expect_contains "$(cat "$WORK/b.log")" "leading term=2"
  controller_pid=$pid_b
else
  start_controller "$controller_extra"
  controller_log="$WORK/controller.log"
  controller_pid=${PIDS[-1]}
fi
set +e
"$kvctl" alerts redeliver --webhook nope 2>"$WORK/redeliver.err"; rc=$?
set -e
[ "$rc" = 3 ] || fail "a redelivery to an unknown webhook: exit $rc, not 3 (NOT_FOUND): $(cat "$WORK/redeliver.err")"
expect_contains "$(cat "$WORK/redeliver.err")" 'no webhook named "nope" in the controller'"'"'s config (it has ops, stuck, loud)'
redelivered_at=$SECONDS
expect_contains "$("$kvctl" alerts redeliver --include-failed)" " undelivered alert(s) of every webhook sent now (failed ones included)"
expect_contains "$(cat "$controller_log")" "alerts redelivered on request webhook=* include_failed=true deliveries="
accepted() { jq -s '[.[] | select(.answered == 200)] | length' "$WORK/hook/deliveries.jsonl"; }
all_accepted() { [ "$(accepted)" -ge "$alert_count" ]; }
wait_until 60 all_accepted || fail "only $(accepted) of $alert_count alerts delivered after the restart"
# One webhook's worker each: one at a time behind "stuck" (3 s an attempt) and "loud" this took
# 3 s and more per alert.
echo "ops had its $alert_count alerts $((SECONDS - redelivered_at)) s after the redelivery, beside a hung and a loud receiver"
[ $((SECONDS - redelivered_at)) -le 20 ] ||
  fail "ops waited $((SECONDS - redelivered_at)) s for $alert_count alerts behind the stuck and loud receivers"
held() { [ "$(jq -s '[.[] | select(.answered == 0)] | length' "$WORK/hook-stuck/deliveries.jsonl")" -ge 1 ]; }
wait_until 20 held || fail "the stuck receiver was not tried"
# The loud receiver's 1.5 GB answer: the controller keeps its start, counts the rest, and its peak
# memory stays far below the body's size.
loud_detail() {
  "$kvctl" alerts --output json --limit 1000 |
    jq -r '[.alerts[].deliveries[] | select(.webhook == "loud") | .last_detail] | join("\n")'
}
loud_answered() { grep -qF "... (1500000000 bytes)" <<<"$(loud_detail)"; }
wait_until 60 loud_answered || fail "no 1.5 GB answer recorded for loud: $(loud_detail | head -3)"
rm "$WORK/hook-loud/loud"
expect_contains "$(loud_detail)" "HTTP 500 from http://127.0.0.1:$(cat "$WORK/hook-loud/port")/hook: xxxx"
peak_kb="$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$controller_pid/status")"
[ -n "$peak_kb" ] || fail "no VmHWM in /proc/$controller_pid/status"
echo "controller peak RSS $((peak_kb / 1024)) MiB after a 1.5 GB webhook answer"
[ "$peak_kb" -lt $((200 * 1024)) ] || fail "controller peak RSS $((peak_kb / 1024)) MiB after a 1.5 GB answer"
delivered_all() { [ "$("$kvctl" alerts --output json --limit 1000 | jq '[.alerts[].deliveries[] | select(.state == "DELIVERY_DELIVERED")] | length')" = "$alert_count" ]; }
wait_until 20 delivered_all || fail "the controller does not record every delivery: $("$kvctl" alerts)"
# A second restart (graceful) sends nothing again: the gauges restored from the store show it ran.
if [ "$failover" = 1 ]; then
  # b hands its lease over as it stops; c, on a's old address, leads at once.
  kill -TERM "$pid_b"
  wait "$pid_b" 2>/dev/null || true
  start_ha_controller c "$controller_extra" "$addr_a"
  controller_serving c
else
  kill -TERM "${PIDS[-1]}"
  wait "${PIDS[-1]}" 2>/dev/null || true
  start_controller "$controller_extra"
fi
restored() { grep -q '^kvbench_schedule_result{' <<<"$(curl -sf "$metrics_url")"; }
wait_until 20 restored || fail "the restarted controller shows no schedule result"
python3 - "$WORK/hook/deliveries.jsonl" "$alert_count" <<'PY' || fail "deliveries are not exactly one signed notification per alert"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert all(l["valid"] for l in lines), [l for l in lines if not l["valid"]]
accepted = [l for l in lines if l["answered"] == 200]
ids = [l["id"] for l in accepted]
assert len(ids) == int(sys.argv[2]) == len(set(ids)), ids
kinds = sorted({l["type"] for l in accepted})
assert kinds == ["kvbench.regression.change_point", "kvbench.regression.diff"], kinds
for l in accepted:
    data = l["body"]["data"]
    assert data["schedule"] == "nightly" and data["agent"] == "sim-a" and data["metric"], data
    assert "before" in data and "after" in data and "change" in data, data
    if l["type"] == "kvbench.regression.diff":
        assert data["low"] <= data["change"] <= data["high"], data
print(f"{len(ids)} alerts delivered once each, signed; {len(lines) - len(ids)} refused attempts before")
PY

# Prometheus scrapes the controller with kvbench's rules; every dashboard panel has data.
target="${metrics_url#http://}"
cat > "$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $KV_SOURCE/deploy/prometheus/kvbench-rules.yml
scrape_configs:
  - job_name: kvbench-controller
    static_configs:
      - targets: ["${target%%/*}"]
    metrics_path: /metrics
YAML
start_prometheus "$WORK/prometheus.yml"
recorded() {
  curl -sf --get "$prometheus_url/api/v1/query" \
    --data-urlencode 'query=schedule:kvbench_ttft_p95_offload_vs_gpu:ratio' | jq -e '.data.result | length > 0' >/dev/null
}
wait_until 60 recorded || fail "Prometheus recorded no offload-vs-GPU ratio"
"$KV_SOURCE/tests/tools/dashboard_queries.sh" "$prometheus_url" \
  "$KV_SOURCE/deploy/grafana/kvbench-dashboard.json" > "$WORK/panels.txt" ||
  fail "a dashboard panel has no data: $(cat "$WORK/panels.txt")"
# The exported p95 is run 12's, recomputed from its request rows.
"$kvctl" results "${jobs[11]}" --requests > "$WORK/requests-11.jsonl"
"$kvctl" status "${jobs[11]}" --output json > "$WORK/job-11.json"
curl -sf "$metrics_url" > "$WORK/metrics.txt"
python3 - "$WORK" <<'PY' || fail "the exported TTFT p95 is not run 12's"
import json, re, sys
work = sys.argv[1]
job = json.load(open(f"{work}/job-11.json"))
[gpu] = [s for s in job["scenarios"] if s["scenario"]["tier"] == "GPU"]
rows = [json.loads(l) for l in open(f"{work}/requests-11.jsonl")]
ttfts = sorted(r["ttft_s"] / gpu["result"]["sim_time_scale"] for r in rows
               if r["scenario_id"] == gpu["scenario"]["scenario_id"] and r["error"] is None)
rank = (len(ttfts) - 1) * 0.95; lower = int(rank)
want = ttfts[lower] + (rank - lower) * (ttfts[lower + 1] - ttfts[lower])
[line] = [l for l in open(f"{work}/metrics.txt") if l.startswith("kvbench_schedule_result{")
          and 'tier="gpu"' in l and 'metric="ttft_p95_seconds"' in l]
got = float(line.rsplit(" ", 1)[1])
assert abs(got - want) <= 1e-6 * want, (got, want)
PY
echo "ok: $(wc -l < "$WORK/panels.txt") panel queries with data"
