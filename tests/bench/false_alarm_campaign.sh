#!/usr/bin/env bash
# False alarms and power of kvbench's regression checks on a busy host,
# measured through the real processes: a kv-controller and a simulated kv-agent on loopback, with
# a neighbour busy loop (`bash -c 'while :; do :; done'`) on the machine the whole time.
#
#   tests/bench/false_alarm_campaign.sh [--fires N] [--diffs N] [--trials N] [--blocks B]
#                                       [--scale S] [--quiet-host] [--fixed-seed]
#
# The simulated engine reproduces (README, "Simulated runs that reproduce"): one spec with one
# seed gives the same numbers at every fire, so an unchanged schedule with a fixed seed tests
# nothing but that (--fixed-seed). By default each run draws another seed (fire i seed i, the
# schedule's spec replaced with `kvctl schedule create --replace`, trial t seed 100 + t): its
# users' outputs and the engine's sampling vary as a real engine's runs do, and that is the noise
# the checks below must not mistake for a regression.
#
# 1. --fires (20) fires of one schedule (the demo spec at concurrency 16, GPU and CPU_RAM, 1,024
#    GPU KV blocks), each judged by the controller as in production (a
#    bootstrap diff against the runs since the last change point, family-wise controlled over the
#    alert metrics x scenarios; E-Divisive change points): the alerts they raised, by kind.
# 2. --diffs (20) A/A `kvctl diff`s, each of three of those runs pooled as the baseline against a
#    fourth (diff k: runs k, k+1, k+2 against k+3, cyclically): how many exit 9, and how many
#    would have without the family-wise control (a verdict it withheld).
# 3. --trials (10) runs with the GPU KV cache halved (--blocks, 512), each diffed with
#    `kvctl diff` against three pooled runs of step 1: in how many a regression is found (exit 9).
# Steps 1 and 2 also count what the tests alone, without the family-wise control, would have
# said (verdicts Holm withheld). --quiet-host leaves out the busy loop. Not a test (2 to 4 minutes
# on 2 cores, 5 to 7 s a run): run by hand after deploy/build.sh and quote the figures it prints
# with the command line. Fewer --fires/--diffs/--trials give a shorter campaign with the same steps
# (at least 4 fires: a diff needs four runs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KV_BIN="${KV_BIN:-$root/build/bin}" KV_SOURCE="$root"
export KV_DEMO_DATASETS="$root/deploy/examples/datasets"
source "$root/tests/e2e/lib.sh"
kvctl="$KV_BIN/kvctl"
fires=20
diffs=20
trials=10
blocks=512
scale=0.05
busy=1
fixed_seed=0
usage="usage: $0 [--fires N] [--diffs N] [--trials N] [--blocks B] [--scale S] [--quiet-host] [--fixed-seed]"
while [ $# -gt 0 ]; do
  case "$1" in
    --fires) fires=$2; shift 2 ;;
    --diffs) diffs=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --blocks) blocks=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --quiet-host) busy=0; shift ;;
    --fixed-seed) fixed_seed=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[ "$fires" -ge 4 ] || { echo "--fires must be at least 4 (a diff pools three runs against a fourth)" >&2; exit 2; }
started_at=$SECONDS

start_controller '"heartbeat_timeout_s": 30'
start_sim_agent sim-a
if [ "$busy" = 1 ]; then
  bash -c 'while :; do :; done' &
  PIDS+=($!)
fi

# spec FILE BLOCKS SEED: the demo at concurrency 16, GPU and CPU_RAM, BLOCKS GPU KV blocks; SEED,
# or 1 with --fixed-seed.
spec() {
  local seed=$3
  [ "$fixed_seed" = 1 ] && seed=1
  python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$1" "$2" "$scale" "$seed" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="false-alarms", tiers=["GPU", "CPU_RAM"], concurrency=[16], replicas=1,
            seed=int(sys.argv[5]))
spec["engine_overrides"]["num_gpu_blocks"] = int(sys.argv[3])
spec["engine_overrides"]["sim_time_scale"] = float(sys.argv[4])
json.dump(spec, open(sys.argv[2], "w"))
PY
}

# fire SEED: (re)places the schedule's spec with SEED's, runs it now and waits for the
# controller's analysis; prints the job id.
fire() {
  local job flag=--replace
  spec "$WORK/unchanged.json" 1024 "$1"
  "$kvctl" schedule show unchanged >/dev/null 2>&1 || flag=""
  "$kvctl" schedule create unchanged --spec "$WORK/unchanged.json" --cron "0 0 1 1 *" \
    --overlap queue $flag >/dev/null
  job="$("$kvctl" schedule run-now unchanged --output json | jq -r .job_id)"
  analyzed() { [ "$("$kvctl" status "$job" --output json | jq -r '.analysis.job_id // ""')" = "$job" ]; }
  wait_until 600 analyzed || fail "run $job was not analyzed"
  echo "$job"
}

# state_of JOB: "JOB_STATE_SUCCEEDED, 2 of 2 scenarios succeeded".
state_of() {
  "$kvctl" status "$1" --output json | jq -r '"\(.state), \([.scenarios[] | select(.state == "SCENARIO_STATE_SUCCEEDED")] | length) of \(.scenarios | length) scenarios succeeded"'
}

# submit SPEC: submits a job and waits for it to end; prints the job id.
submit() {
  local job
  job="$("$kvctl" submit "$1" --output json | jq -r .job_id)"
  ended() { case "$("$kvctl" status "$job" --output json | jq -r .state)" in
    JOB_STATE_SUCCEEDED | JOB_STATE_FAILED | JOB_STATE_CANCELLED) return 0 ;; *) return 1 ;; esac; }
  wait_until 600 ended || fail "job $job did not end"
  echo "$job"
}

# pooled_diff AFTER B1 B2 B3: kvctl diff of AFTER against B1..B3 pooled, JSON in $WORK/diff.json,
# its exit status in $rc (0, or 9 for a regression; anything else fails the campaign).
pooled_diff() {
  rc=0
  "$kvctl" diff "$2" "$1" --baseline-also "$3" --baseline-also "$4" --output json \
    > "$WORK/diff.json" 2> "$WORK/diff.err" || rc=$?
  case "$rc" in 0 | 9) ;; *) fail "kvctl diff exited $rc: $(cat "$WORK/diff.err")" ;; esac
}

echo "== 1. $fires fires of an unchanged schedule (busy neighbour: $([ "$busy" = 1 ] && echo yes || echo no), sim_time_scale $scale, seeds: $([ "$fixed_seed" = 1 ] && echo "1 at every fire" || echo "fire i seed i"))"
jobs_run=()
for i in $(seq 1 "$fires"); do
  jobs_run+=("$(fire "$i")")
  echo "  fire $i: ${jobs_run[-1]} $(state_of "${jobs_run[-1]}") ($((SECONDS - started_at)) s)"
done
"$kvctl" alerts --schedule unchanged --limit 1000 --output json > "$WORK/alerts.json"
# An empty list is left out of the JSON.
alerts="$(jq '.alerts // [] | length' "$WORK/alerts.json")"
diff_alerts="$(jq '[.alerts // [] | .[] | (.alert // .) | select(.kind == "ALERT_DIFF_REGRESSION")] | length' "$WORK/alerts.json")"
point_alerts="$(jq '[.alerts // [] | .[] | (.alert // .) | select(.kind == "ALERT_CHANGE_POINT")] | length' "$WORK/alerts.json")"
jq -r '.alerts // [] | .[] | (.alert // .) | "  alert: \(.alert_id) \(.change // "")"' "$WORK/alerts.json"
# Diff alerts the family-wise control withheld: regressions of an alert metric (the first family)
# by their own interval that Holm did not keep.
withheld_alerts=0
for job in "${jobs_run[@]}"; do
  n="$("$kvctl" status "$job" --output json | jq '.analysis as $a | ($a.families[0].metrics // []) as $alert
    | [$a.scenarios[]?.metrics[] | select(.metric as $m | ($alert | index($m)) != null)
       | select((.note // "") | startswith("would be regression by its own"))] | length')"
  withheld_alerts=$((withheld_alerts + n))
done

# How the fires' own values spread: per tier, TTFT p95 (ms) min, median, max over the fires (the
# analysis' `after`); with --fixed-seed, min = max is the simulator reproducing.
for job in "${jobs_run[@]}"; do
  "$kvctl" status "$job" --output json |
    jq -r '.analysis.scenarios[]? | .tier as $t | .metrics[] | select(.metric == "ttft_p95_s" and .after != null) | "\($t) \(.after * 1000)"'
done | sort -k1,1 -k2,2g | awk '
  { v[$1, ++n[$1]] = $2 }
  END { for (t in n) printf "  %s TTFT p95 over the fires: min %.1f ms, median %.1f ms, max %.1f ms\n", t, v[t, 1], v[t, int((n[t] + 1) / 2)], v[t, n[t]] }' |
  tee "$WORK/spread.txt"

echo "== 2. $diffs A/A kvctl diffs, three runs pooled against a fourth"
exits9=0 would_have=0
for k in $(seq 0 $((diffs - 1))); do
  b1="${jobs_run[$((k % fires))]}" b2="${jobs_run[$(((k + 1) % fires))]}"
  b3="${jobs_run[$(((k + 2) % fires))]}" after="${jobs_run[$(((k + 3) % fires))]}"
  pooled_diff "$after" "$b1" "$b2" "$b3"
  [ "$rc" = 9 ] && { exits9=$((exits9 + 1)); echo "  diff $k exits 9: $(jq -c '[.scenarios[] | .tier as $t | .metrics[] | select(.verdict == "regression") | "\($t) \(.metric) \(.change | floor)%"]' "$WORK/diff.json")"; }
  if [ "$rc" = 9 ] || jq -e '[.scenarios[].metrics[] | select((.note // "") | startswith("would be regression by its own"))] | length > 0' "$WORK/diff.json" >/dev/null; then
    would_have=$((would_have + 1))
  fi
done

echo "== 3. $trials trials with the GPU KV cache halved ($blocks blocks), each against three pooled runs of step 1"
found=0
for t in $(seq 0 $((trials - 1))); do
  spec "$WORK/halved.json" "$blocks" $((100 + t))
  job="$(submit "$WORK/halved.json")"
  pooled_diff "$job" "${jobs_run[$((t % fires))]}" "${jobs_run[$(((t + 1) % fires))]}" \
    "${jobs_run[$(((t + 2) % fires))]}"
  [ "$rc" = 9 ] && found=$((found + 1))
  echo "  trial $t: $job exit $rc: $(jq -c '[.scenarios[] | .tier as $t | .metrics[] | select(.metric == "ttft_p95_s") | "\($t) TTFT p95 \(.change | floor)% \(.verdict) adj.p=\(.adjusted_p_worse)"]' "$WORK/diff.json") ($((SECONDS - started_at)) s)"
done

echo "== figures ($((SECONDS - started_at)) s)"
echo "unchanged schedule, $fires fires: $alerts alerts ($diff_alerts diff, $point_alerts change point; without the family-wise control $((diff_alerts + withheld_alerts)) diff alerts)"
echo "A/A kvctl diff, three pooled baselines: $exits9 of $diffs exit 9 (without the family-wise control: $would_have of $diffs)"
echo "GPU KV cache halved ($blocks blocks): a regression found in $found of $trials trials"
cat "$WORK/spread.txt"
