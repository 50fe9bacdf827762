#!/usr/bin/env bash
# How hard the demo drives its host: the demo spec run once per --scale (its
# sim_time_scale), optionally beside --busy N neighbour busy loops, printing per scenario the
# figures the host_saturated check reads (controller/results/host_saturation.h) — host CPU busy,
# kv-runner's loop lag p99, kvsim-vllm's mean and p99 step lateness (simulated ms = real ÷ scale)
# — each recomputed from the raw files (samples.jsonl, requests.jsonl), the share of the machine
# the run's own processes used (replicas, cache server, Caddy, kv-runner: the result's
# process_cpu_pct_mean ÷ cores; kvctl itself not counted), the scenario's simulated TTFT p50/p95,
# whether host_saturated was raised, and the run's wall time.
#
#   tests/bench/host_load.sh [--scale S]... [--busy N] [--nice N] [--spec FILE]
#
# --nice runs kvctl (and so the whole demo) at that niceness: on a machine others keep busy, a
# negative one approximates a quiet machine for the run's own lateness (CFS then gives its
# threads the cores first), though the whole machine's CPU stays busy.
# Not a test: run by hand after deploy/build.sh, and report the figures with the machine's load.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${KV_BIN:-$root/build/bin}"
spec="$root/deploy/examples/demo-sim.json"
scales=()
busy=0
nice=0
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scales+=("$2"); shift 2 ;;
    --busy) busy=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    --spec) spec=$2; shift 2 ;;
    *) echo "usage: $0 [--scale S]... [--busy N] [--nice N] [--spec FILE]" >&2; exit 2 ;;
  esac
done
[ ${#scales[@]} -gt 0 ] || scales=("$(jq -r '.engine_overrides.sim_time_scale' "$spec")")
work="$(mktemp -d /tmp/kvbench-host-load-XXXXXX)"
busy_pids=()
cleanup() {
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
for ((i = 0; i < busy; i++)); do
  bash -c 'while :; do :; done' &
  busy_pids+=($!)
done

# The figures of one scenario folder, recomputed from its raw files.
figures() {
  local dir=$1 scale=$2
  # Host CPU busy: the /proc/stat fields of the "before" and "after" host samples, each field's
  # increase (a field that went backwards counts 0), busy = all but idle and iowait.
  local cpu
  cpu="$(jq -s '[.[] | select(.source == "host")] as $h
    | ($h | map(select(.kind == "before")) | first) as $b
    | ($h | map(select(.kind == "after")) | last) as $a
    | if $b == null or $a == null then null else
        ($a.values | keys | map({(.): ([($a.values[.] - $b.values[.]), 0] | max)}) | add) as $d
        | ($d | to_entries | map(.value) | add) as $total
        | (($d.cpu_idle_ticks // 0) + ($d.cpu_iowait_ticks // 0)) as $idle
        | if $total > 0 then 100 * ($total - $idle) / $total else null end end' \
    "$dir/samples.jsonl")"
  # kv-runner's loop lag p99 over the requests' loop_lag_s (linear interpolation, numpy's).
  local loop
  loop="$(jq -s '[.[] | .loop_lag_s | select(. != null)] | sort as $v | ($v | length) as $n
    | if $n == 0 then null else (($n - 1) * 0.99) as $h | ($h | floor) as $i
        | $v[$i] + ($h - $i) * (($v[[$i + 1, $n - 1] | min]) - $v[$i]) end' "$dir/requests.jsonl")"
  local loop90
  loop90="$(jq -s '[.[] | .loop_lag_s | select(. != null)] | sort as $v | ($v | length) as $n
    | if $n == 0 then null else (($n - 1) * 0.9) as $h | ($h | floor) as $i
        | $v[$i] + ($h - $i) * (($v[[$i + 1, $n - 1] | min]) - $v[$i]) end' "$dir/requests.jsonl")"
  # The steps' p90 lateness: PromQL's histogram_quantile(0.9) of the buckets' increases.
  local step90
  step90="$(jq -s --arg k "kvsim:step_lateness_seconds_bucket" --argjson phi 0.9 '
    [.[] | select(.source | startswith("replica-"))] as $s
    | [$s[] | .values | keys[] | select(startswith($k))] | unique as $names
    | [$names[] as $n | {le: ($n | capture("le=\"(?<b>[^\"]*)\"").b
          | if . == "+Inf" then infinite else tonumber end),
        c: (([$s[] | select(.kind == "after") | .values[$n] // 0] | add)
            - ([$s[] | select(.kind == "before") | .values[$n] // 0] | add))}]
    | sort_by(.le) as $b | if ($b | length) == 0 or $b[-1].c == 0 then null else
      ($phi * $b[-1].c) as $rank | (first(range(0; $b | length) | select($b[.].c >= $rank))) as $i
      | if $b[$i].le == infinite then $b[$i - 1].le
        elif $i == 0 then $b[0].le * $rank / $b[0].c
        else $b[$i - 1].le + ($b[$i].le - $b[$i - 1].le) * ($rank - $b[$i - 1].c)
          / ($b[$i].c - $b[$i - 1].c) end end' "$dir/samples.jsonl")"
  # kvsim-vllm's step lateness: the histogram's increase from "before" to "after", summed over
  # the replicas.
  local late
  late="$(jq -s --arg k "kvsim:step_lateness_seconds" '
    [.[] | select(.source | startswith("replica-"))] as $s
    | def total(kind; key): [$s[] | select(.kind == kind) | .values[key] // 0] | add // 0;
      (total("after"; $k + "_sum") - total("before"; $k + "_sum")) as $sum
    | (total("after"; $k + "_count") - total("before"; $k + "_count")) as $count
    | if $count > 0 then $sum / $count else null end' "$dir/samples.jsonl")"
  local p99 ttft50 ttft95 own
  p99="$(jq '.host_load.sim_step_lateness_p99_s // null' "$dir/result.json")"
  own="$(jq --argjson cores "$(nproc)" \
    '[.telemetry.process_cpu_pct_mean // {} | .[]] | add // null | if . == null then null
     else . / $cores end' "$dir/result.json")"
  ttft50="$(jq '.simulated_latency.ttft_p50_s // null' "$dir/result.json")"
  ttft95="$(jq '.simulated_latency.ttft_p95_s // null' "$dir/result.json")"
  awk -v id="$(basename "$dir")" -v cpu="$cpu" -v loop="$loop" -v late="$late" -v p99="$p99" \
    -v s="$scale" -v t50="$ttft50" -v t95="$ttft95" -v own="$own" -v loop90="$loop90" -v step90="$step90" 'function ms(x) {
      return x == "null" ? "-" : sprintf("%.1f", x * 1000 / s) }
    function pct(x) { return x == "null" ? "-" : sprintf("%.0f%%", x) }
    BEGIN { printf "  %-15s %6s %6s %9s %9s %9s %9s %9s %9s %9s\n", id, pct(cpu), pct(own),
      ms(loop90), ms(loop), ms(step90), ms(late), ms(p99),
      t50 == "null" ? "-" : sprintf("%.0f", t50 * 1000), t95 == "null" ? "-" : sprintf("%.0f", t95 * 1000) }'
}

echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $busy busy loop(s) beside the" \
  "demo, niceness $nice"
run=0
for scale in "${scales[@]}"; do
  run=$((run + 1))
  name="host-load-$run-$(echo "$scale" | tr . _)"
  jq --argjson s "$scale" '.engine_overrides.sim_time_scale = $s | .name = "'"$name"'"' "$spec" \
    > "$work/$name.json"
  start=$(date +%s.%N)
  code=0
  nice -n "$nice" "$bin/kvctl" run "$work/$name.json" --out "$work/$name" > "$work/$name.out" \
    2>&1 || code=$?
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  echo "sim_time_scale $scale: kvctl run exited $code in ${wall} s"
  printf "  %-15s %6s %6s %9s %9s %9s %9s %9s %9s %9s\n" scenario cpu own loop_p90 loop_p99 \
    step_p90 step_mean step_p99 ttft_p50 ttft_p95
  printf "  %-15s %6s %6s %9s %9s %9s %9s %9s %9s %9s\n" "" "" "" "(sim ms)" "(sim ms)" \
    "(sim ms)" "(sim ms)" "(sim ms)" "(sim ms)" "(sim ms)"
  for dir in "$work/$name"/"$name"-*/[0-9]*/; do figures "${dir%/}" "$scale"; done
  grep -h "host_saturated" "$work/$name.out" | sed 's/^/  /' || echo "  no host_saturated"
done
