#!/usr/bin/env bash
# Whether simulated numbers reproduce: the demo spec run N times, unchanged and
# with one seed, through `kvctl run`, optionally with a neighbour busy loop on one core; per
# scenario (tier, concurrency, repeat: its id) the simulated TTFT p50 and p95 of each run
# (result.json's simulated_latency), and their spread (max - min) / median. The target: within 10%
# for every tier, or the run is flagged host_saturated. Prints the table, then how many runs were
# flagged. Scenarios some runs did not have (a capacity search that probed elsewhere) show fewer
# values.
#
#   tests/bench/sim_reproducibility.sh [--runs N] [--busy] [--spec FILE]
#
# Not a test (minutes long): run by hand after deploy/build.sh, and report the figures with the
# command that produced them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KV_BIN="${KV_BIN:-$root/build/bin}" KV_SOURCE="$root"
export KV_DEMO_DATASETS="$root/deploy/examples/datasets"
source "$root/tests/e2e/lib.sh"
runs=6
busy=0
spec="$root/deploy/examples/demo-capacity.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    --spec) spec=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--busy] [--spec FILE]" >&2; exit 2 ;;
  esac
done
if [ "$busy" = 1 ]; then
  bash -c 'while :; do :; done' &
  PIDS+=($!)
fi
echo "== $runs runs of $(basename "$spec") (seed as in the spec), neighbour busy loop: $([ "$busy" = 1 ] && echo yes || echo no), $(nproc) cores"
for i in $(seq 1 "$runs"); do
  start=$SECONDS
  KV_DATASET_MIRROR="$KV_DEMO_DATASETS" "$KV_BIN/kvctl" run "$spec" --out "$WORK/run-$i" \
    >"$WORK/run-$i.out" 2>&1 || { tail -20 "$WORK/run-$i.out" >&2; fail "run $i failed"; }
  echo "run $i: $((SECONDS - start)) s"
done
# One line per run and scenario: scenario_id p50_ms p95_ms saturated(true/false) run
for i in $(seq 1 "$runs"); do
  job_dir="$(ls -d "$WORK/run-$i"/*/ | head -1)"
  saturated="$(jq -r '[.validity[]?.reasons[]?.code] | index("host_saturated") != null' "$job_dir/job.json" 2>/dev/null || echo false)"
  for result in "$job_dir"/*/result.json; do
    jq -r --arg run "$i" --arg sat "$saturated" '"\(.scenario_id) \(.simulated_latency.ttft_p50_s * 1000) \(.simulated_latency.ttft_p95_s * 1000) \($sat) \($run)"' "$result"
  done
done > "$WORK/figures.txt"
awk '
  { key = $1; n[key]++; p50[key, n[key]] = $2; p95[key, n[key]] = $3; if ($4 == "true") sat[$5] = 1 }
  function spread(arr, key, count,   i, j, t, v, lo, hi, med) {
    for (i = 1; i <= count; i++) v[i] = arr[key, i]
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    lo = v[1]; hi = v[count]
    med = count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
    return sprintf("%8.1f %8.1f %8.1f %6.0f%%", lo, med, hi, med > 0 ? (hi - lo) / med * 100 : 0)
  }
  END {
    for (key in n) printf "%-20s %2d %-35s %-35s\n", key, n[key], spread(p50, key, n[key]), spread(p95, key, n[key])
    s = 0; for (r in sat) s++
    printf "~runs flagged host_saturated: %d\n", s
  }' "$WORK/figures.txt" | sort > "$WORK/table.txt"
printf "%-20s %2s %-35s %-35s\n" SCENARIO RUNS "TTFT p50 sim ms (min med max spread)" "TTFT p95 sim ms (min med max spread)"
grep -v '^~' "$WORK/table.txt"
grep '^~' "$WORK/table.txt" | cut -c2-
echo "capacity headline of each run:"
for i in $(seq 1 "$runs"); do
  echo "run $i: $(grep -m1 '^At ' "$WORK/run-$i.out" || echo '(none: the spec has no capacity search)')"
done
