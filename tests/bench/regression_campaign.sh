#!/usr/bin/env bash
# The false-alarm rate and the power of kvbench's regression checks, measured through
# the real processes: a kv-controller and a simulated kv-agent on loopback, one schedule whose
# runs the controller judges exactly as in production (a bootstrap diff against the runs since the
# last change point, pooled; E-Divisive change points over the history).
#
#   tests/bench/regression_campaign.sh [--aa RUNS] [--after RUNS] [--blocks N]... [--scale S]
#
# A/A: RUNS (20) runs of one spec, each with another seed (kvctl schedule create --replace). It
# prints the regression verdicts on TTFT p50/p95 of every run's analysis (all scenarios), the
# change points and alerts the history raised, and the same verdicts of kvctl diff between
# consecutive runs (one run against one run). Then for each --blocks N: a fresh schedule of 8
# A/A runs at the demo's 1024 GPU KV blocks followed by --after (4) runs at N blocks: whether the
# first changed run's diff says regression and whether a change point is found at it.
# Not a test (minutes long): run by hand after deploy/build.sh, on an otherwise idle machine,
# and report the figures.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KV_BIN="${KV_BIN:-$root/build/bin}" KV_SOURCE="$root"
export KV_DEMO_DATASETS="$root/deploy/examples/datasets"
source "$root/tests/e2e/lib.sh"
kvctl="$KV_BIN/kvctl"
aa_runs=20
after_runs=4
scale=0.05
blocks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --aa) aa_runs=$2; shift 2 ;;
    --after) after_runs=$2; shift 2 ;;
    --blocks) blocks+=("$2"); shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    *) echo "usage: $0 [--aa RUNS] [--after RUNS] [--blocks N]... [--scale S]" >&2; exit 2 ;;
  esac
done

start_controller '"heartbeat_timeout_s": 30'
start_sim_agent sim-a

# spec NAME SEED BLOCKS: the demo at concurrency 16, GPU and CPU_RAM.
spec() {
  python3 - "$KV_SOURCE/deploy/examples/demo-sim.json" "$WORK/$1.json" "$2" "$3" "$scale" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(name="campaign", tiers=["GPU", "CPU_RAM"], concurrency=[16], replicas=1,
            seed=int(sys.argv[3]))
spec["engine_overrides"]["num_gpu_blocks"] = int(sys.argv[4])
spec["engine_overrides"]["sim_time_scale"] = float(sys.argv[5])
json.dump(spec, open(sys.argv[2], "w"))
PY
}
# run SCHEDULE SEED BLOCKS: (re)places the schedule's spec, fires it, waits for its analysis;
# prints the job id.
run() {
  local job flag=--replace
  spec "$1" "$2" "$3"
  "$kvctl" schedule show "$1" >/dev/null 2>&1 || flag=""
  "$kvctl" schedule create "$1" --spec "$WORK/$1.json" --cron "0 0 1 1 *" --overlap queue $flag >/dev/null
  job="$("$kvctl" schedule run-now "$1" --output json | jq -r .job_id)"
  analyzed() { [ "$("$kvctl" status "$job" --output json | jq -r '.analysis.job_id // ""')" = "$job" ]; }
  wait_until 300 analyzed || fail "run $job was not analyzed"
  echo "$job"
}
# verdicts JOB: "<scenario> <metric> <verdict> <change>" of TTFT p50/p95 in the job's analysis.
verdicts() {
  "$kvctl" status "$1" --output json | jq -r '.analysis.scenarios[]? | .tier as $t
    | .metrics[] | select(.metric == "ttft_p50_s" or .metric == "ttft_p95_s")
    | "\($t) \(.metric) \(.verdict) \(.change // "null")"'
}

echo "== A/A: $aa_runs runs, seeds 1..$aa_runs, sim_time_scale $scale"
aa_jobs=()
for seed in $(seq 1 "$aa_runs"); do aa_jobs+=("$(run aa "$seed" 1024)"); done
controller_tests=0 controller_regressions=0
for job in "${aa_jobs[@]}"; do
  while read -r tier metric verdict change; do
    controller_tests=$((controller_tests + 1))
    [ "$verdict" = regression ] && { controller_regressions=$((controller_regressions + 1)); echo "  regression: $job $tier $metric $change%"; }
  done < <(verdicts "$job")
done
change_points="$("$kvctl" history aa --metric latency.ttft_p95_s --last "$aa_runs" --output json | jq '.change_points | length')"
alerts="$("$kvctl" alerts --schedule aa --limit 1000 --output json | jq '.alerts | length')"
all_points="$(jq -r '.change_points | length' < <("$kvctl" history aa --metric latency.ttft_p50_s --last "$aa_runs" --output json))"
pair_tests=0 pair_regressions=0
for i in $(seq 1 $((aa_runs - 1))); do
  while read -r metric verdict; do
    pair_tests=$((pair_tests + 1))
    [ "$verdict" = regression ] && { pair_regressions=$((pair_regressions + 1)); echo "  pairwise regression: run $i -> $((i + 1)) $metric"; }
  done < <("$kvctl" diff "${aa_jobs[$((i - 1))]}" "${aa_jobs[$i]}" --output json 2>/dev/null |
    jq -r '.scenarios[] | .tier as $t | .metrics[] | select(.metric == "ttft_p50_s" or .metric == "ttft_p95_s") | "\($t)/\(.metric) \(.verdict)"' || true)
done
echo "controller (baseline: runs since the last change point, pooled): $controller_regressions regression verdicts in $controller_tests TTFT p50/p95 tests"
echo "kvctl diff of consecutive runs: $pair_regressions regression verdicts in $pair_tests TTFT p50/p95 tests"
echo "change points in the A/A history: TTFT p95 $change_points, TTFT p50 $all_points; alerts raised: $alerts"

for n in "${blocks[@]:-}"; do
  [ -n "$n" ] || continue
  name="power-$n"
  echo "== power: 8 runs at 1024 GPU KV blocks, then $after_runs at $n"
  jobs_of=()
  for seed in 1 2 3 4 5 6 7 8; do jobs_of+=("$(run "$name" "$seed" 1024)"); done
  for seed in $(seq 9 $((8 + after_runs))); do jobs_of+=("$(run "$name" "$seed" "$n")"); done
  echo "first changed run ${jobs_of[8]}:"
  verdicts "${jobs_of[8]}" | sed 's/^/  /'
  echo "change points (TTFT p95):"
  "$kvctl" history "$name" --metric latency.ttft_p95_s --last 20 --output json |
    jq -r '.change_points[] | "  run \(.run) \(.tier) \(.magnitude_pct | floor)% p=\(.p_value)"'
done
