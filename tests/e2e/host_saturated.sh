#!/usr/bin/env bash
# Host load through the real processes (kvctl run: kvsim-vllm, kvsim-lmcache for CPU_RAM,
# kv-runner): the host_saturated check, with every figure it reads recomputed from the raw files
# and compared with result.json's — host CPU busy from the "host" samples of samples.jsonl, kv-
# runner's send and loop lag from requests.jsonl, kvsim-vllm's step lateness from the scraped
# kvsim:step_lateness_seconds histogram — and the reason raised exactly when the rule of
# controller/results/host_saturation.h says so. A simulated run is on the scenario's shared clock
# (agent/sim/clock/sim_clock.h, item 5): only a stall of that clock raises the reason, and the
# simulated times do not depend on the host.
#  1. Overloaded: at one simulated second per real millisecond no host keeps pace (its steps go
#     out far past their wall-clock targets, and the figures say so), yet no host_saturated: the
#     clock waited for the host instead of letting its delays into the numbers.
#  2. The same spec at sim_time_scale 0.5 (a pace the host keeps): every request's simulated
#     times (stamps ÷ scale) are those of the overloaded run, and so are result.json's.
source "$(dirname "$0")/lib.sh"
export KV_DATASET_MIRROR="$KV_DEMO_DATASETS"

# spec NAME SCALE PERIOD: GPU and CPU_RAM at 2 users, one replica each, 4 of the airline users,
# scraped every PERIOD simulated seconds (x SCALE real).
spec() {
  cat > "$WORK/$1.json" <<JSON
{"name": "$1", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA", "engine": "sim",
 "tiers": ["GPU", "CPU_RAM"], "replicas": 1,
 "dataset": {"code": "tau2-bench-v1", "path": "tau2_airline_gpt-4.1_results.json"},
 "num_rounds": 5, "concurrency": [2], "sessions": 4, "osl": 16, "cpu_pool_gb": 8,
 "sampling": {"period_s": $3, "rate_window_s": $(($3 * 4))},
 "engine_overrides": {"num_gpu_blocks": 1024, "sim_time_scale": $2}, "seed": 5}
JSON
}

# run NAME: kvctl run of $WORK/NAME.json into $WORK/NAME; its exit code in $WORK/NAME.code.
run() {
  local code=0
  "$KV_BIN/kvctl" run "$WORK/$1.json" --profiles "$KV_SOURCE/deploy/profiles" --out "$WORK/$1" \
    >"$WORK/$1.out" 2>"$WORK/$1.err" || code=$?
  echo "$code" > "$WORK/$1.code"
  [ "$code" = 0 ] || [ "$code" = 8 ] ||
    { cat "$WORK/$1.err" "$WORK/$1.out" >&2; fail "kvctl run $1 exited $code"; }
}

# check NAME: recomputes each scenario's figures, compares them with result.json, and prints the
# host_saturated messages they call for, one a line (nothing when none).
check() {
  python3 - "$(ls -d "$WORK/$1/$1"-*)" <<'PY'
import glob, json, math, os, sys

job_dir = sys.argv[1]

def percentile(values, p):  # numpy's "linear", as common/stats/percentiles.h
    v = sorted(values)
    h = (len(v) - 1) * p / 100
    i = math.floor(h)
    return v[i] + (h - i) * (v[min(i + 1, len(v) - 1)] - v[i])

def quantile(phi, buckets):  # PromQL's histogram_quantile (promql/quantile.go, bucketQuantile)
    bounds = sorted(buckets)
    rank = phi * buckets[bounds[-1]]
    lower, lower_count = 0.0, 0.0
    for i, bound in enumerate(bounds):
        if buckets[bound] >= rank:
            if math.isinf(bound):
                return bounds[i - 1]
            return lower + (bound - lower) * (rank - lower_count) / (buckets[bound] - lower_count)
        lower, lower_count = bound, buckets[bound]

def near(a, b, what, scenario):
    if a is None or b is None or abs(a - b) > 1e-9 * max(1.0, abs(b)):
        sys.exit("FAIL: %s %s: result.json %r, recomputed %r" % (scenario, what, a, b))

for folder in sorted(glob.glob(os.path.join(job_dir, "[0-9]*"))):
    scenario = os.path.basename(folder)
    result = json.load(open(os.path.join(folder, "result.json")))
    load, scale = result.get("host_load", {}), result["sim_time_scale"]
    samples = [json.loads(l) for l in open(os.path.join(folder, "samples.jsonl"))]
    records = [json.loads(l) for l in open(os.path.join(folder, "requests.jsonl"))]
    # Host CPU busy: each /proc/stat field's increase from "before" to "after" (0 if it fell).
    host = [s for s in samples if s["source"] == "host"]
    before = next(s for s in host if s["kind"] == "before")["values"]
    after = [s for s in host if s["kind"] == "after"][-1]["values"]
    delta = {k: max(after[k] - before[k], 0) for k in after}
    total = sum(delta.values())
    cpu = 100 * (total - delta["cpu_idle_ticks"] - delta["cpu_iowait_ticks"]) / total
    near(result["telemetry"]["cpu_utilization_pct_mean"], cpu, "cpu busy", scenario)
    # kv-runner's lag over requests.jsonl.
    send = [r["sent_s"] - r["scheduled_s"] for r in records]
    loop = [r["loop_lag_s"] for r in records if r.get("loop_lag_s") is not None]
    if not loop:
        sys.exit("FAIL: %s: no request has loop_lag_s (the beast client is probed)" % scenario)
    for name, values, stats in (("send", send, (50, 99)), ("loop", loop, (50, 90, 99))):
        for p in stats:
            near(load.get("runner_%s_lag_p%d_s" % (name, p)), percentile(values, p),
                 "%s lag p%d" % (name, p), scenario)
        near(load.get("runner_%s_lag_max_s" % name), max(values), name + " lag max", scenario)
    # kvsim-vllm's step lateness: the histogram's increase from "before" to "after", replicas
    # summed.
    key = "kvsim:step_lateness_seconds"
    replicas = [s for s in samples if s["source"].startswith("replica-")]
    def increase(name):
        return sum(s["values"].get(name, 0) for s in replicas if s["kind"] == "after") - \
               sum(s["values"].get(name, 0) for s in replicas if s["kind"] == "before")
    steps = increase(key + "_count")
    mean = increase(key + "_sum") / steps
    names = {n for s in replicas for n in s["values"] if n.startswith(key + "_bucket{le=")}
    buckets = {float(n.split('"')[1].replace("+Inf", "inf")): increase(n) for n in names}
    near(float(load.get("sim_steps", "nan")), steps, "sim steps", scenario)
    near(load.get("sim_step_lateness_mean_s"), mean, "step lateness mean", scenario)
    for phi in (0.9, 0.99):
        near(load.get("sim_step_lateness_p%d_s" % round(phi * 100)), quantile(phi, buckets),
             "step lateness p%d" % round(phi * 100), scenario)
    # The check, as host_saturation.h states it: on the shared clock, its stalls alone.
    findings = []
    stalls = load.get("sim_clock_stalls")
    if stalls is None:
        sys.exit("FAIL: %s: no host_load.sim_clock_stalls: not run on the shared clock" % scenario)
    if int(stalls) > 0:
        findings.append("the simulated clock wrote off %d message%s that no one received (the "
                        "run no longer reproduces)" % (int(stalls), "" if int(stalls) == 1 else "s"))
    if findings:
        print("%s: %s during the replay; simulated latencies include how late the host answered"
              % (scenario, ", ".join(findings)))
PY
}

# expect_verdicts NAME: kvctl's host_saturated lines are exactly the recomputed ones.
expect_verdicts() {
  local expected
  expected="$(check "$1")" || { echo "$expected" >&2; fail "$1: the figures do not recompute"; }
  local printed
  printed="$(sed -n 's/^ *host_saturated: //p' "$WORK/$1.out")"
  [ "$printed" = "$expected" ] ||
    fail "$1: host_saturated reasons printed:
$printed
--- recomputed from the raw files:
$expected"
  echo "$expected"
}

# --- 1. overloaded
spec overload 0.001 400  # a scrape every 0.4 s real
run overload
expected="$(expect_verdicts overload)"
[ -z "$expected" ] || fail "overload: host_saturated without a stall of the simulated clock: $expected"
late="$(jq -r '.host_load.sim_step_lateness_p90_s' "$WORK"/overload/overload-*/00-gpu-c2/result.json)"
awk -v late="$late" 'BEGIN { exit !(late / 0.001 > 0.010) }' ||
  fail "overload: the steps kept pace at sim_time_scale 0.001 (lateness p90 $late s real): not overloaded"
case "$(cat "$WORK/overload.out")" in *host_saturated*) fail "overload: host_saturated printed";; esac

# --- 2. the same spec at a pace the host keeps: the same simulated numbers
spec quiet 0.5 1
run quiet
expected="$(expect_verdicts quiet)"
[ -z "$expected" ] || fail "quiet: host_saturated without a stall of the simulated clock: $expected"
# Per request (user, round): scheduled, first token and end in simulated seconds.
simulated() {
  jq -r --argjson scale "$2" '[.user_id, .round, .scheduled_s / $scale, .first_token_s / $scale,
      .end_s / $scale] | @tsv' "$1" | sort
}
for scenario in 00-gpu-c2 01-cpu-ram-c2; do
  a="$(simulated "$(ls "$WORK"/overload/overload-*/$scenario/requests.jsonl)" 0.001)"
  b="$(simulated "$(ls "$WORK"/quiet/quiet-*/$scenario/requests.jsonl)" 0.5)"
  [ "$(wc -l <<<"$a")" -gt 10 ] || fail "$scenario: too few requests to compare: $a"
  paste <(echo "$a") <(echo "$b") | awk -F'\t' -v s="$scenario" '
    function differ(x, y) { return (x - y > 1e-6 * (1 + y) || y - x > 1e-6 * (1 + y)) }
    $1 != $6 || $2 != $7 || differ($3, $8) || differ($4, $9) || differ($5, $10) {
      print s ": request " $1 " round " $2 " at 0.001: " $3 " " $4 " " $5 ", at 0.5: " $8 " " $9 " " $10
      bad = 1 }
    END { exit bad }' || fail "$scenario: the simulated times depend on the pace"
  for field in ttft_p50_s ttft_p95_s tpot_mean_s; do
    x="$(jq ".simulated_latency.$field" "$WORK"/overload/overload-*/$scenario/result.json)"
    y="$(jq ".simulated_latency.$field" "$WORK"/quiet/quiet-*/$scenario/result.json)"
    awk -v x="$x" -v y="$y" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(d <= 1e-6 * (1 + y)) }' ||
      fail "$scenario: simulated $field $x at 0.001, $y at 0.5"
  done
done
