#!/usr/bin/env bash
# The README's figures, and those of the pages under docs/ it leads to, agree with what produces
# them and with their neighbours:
#   1. every program the README or a docs/ page names (build/bin/X, kv_bench_*) is one the build
#      makes;
#   2. the quick start's description of the demo (its search, SLO, repeats, virtual users, GPU
#      blocks, replicas) is deploy/examples/demo-capacity.json's, and its first screen shows the
#      capacity headline at that SLO;
#   3. the sweep example's printed table (deploy/examples/demo-sim.json, in docs/kvctl.md) has the
#      spec's concurrency values, tiers and sessions;
#   4. the TTFT deltas the prose quotes for 16 users ("p50 +A% and +B%, p95 C% and D%") are the
#      table's p50 and p95 columns as deltas against GPU, to the 0.1 printed.
source "$(dirname "$0")/lib.sh"
readme="$KV_SOURCE/README.md"
pages=("$readme" "$KV_SOURCE"/docs/*.md)
spec="$KV_SOURCE/deploy/examples/demo-sim.json"
flat="$(tr '\n' ' ' <"$readme" | tr -s ' ')"
all_flat="$(cat "${pages[@]}" | tr '\n' ' ' | tr -s ' ')"

# 1. Programs.
programs="$(cat "${pages[@]}" | grep -oE 'build/bin/[A-Za-z0-9_.-]+|kv_bench_[a-z_]+' | sed 's|^build/bin/||' |
  sed 's/[.]$//' | sort -u)"
[ -n "$programs" ] || fail "the README and docs/ name no program"
for program in $programs; do
  [ -x "$KV_BIN/$program" ] || fail "the README or docs/ names $program, which the build does not make"
done

# 2. The quick start's demo: its search, SLO, repeats, users, replicas and blocks are
#    demo-capacity.json's, and the headline it shows has the spec's SLO and tiers.
capacity="$KV_SOURCE/deploy/examples/demo-capacity.json"
read -r low high users repeats < <(printf '%s\n' "$flat" |
  sed -nE 's/.*for each tier \(GPU, CPU_RAM, NVME\) the most users from ([0-9]+) to ([0-9]+) \(([0-9]+) virtual users per probe, each probe run ([0-9]+) times\).*/\1 \2 \3 \4/p') || true
[ -n "${repeats:-}" ] || fail "the quick start does not say the demo's search, users and repeats"
[ "$low $high" = "$(jq -r '"\(.concurrency.search.min) \(.concurrency.search.max)"' "$capacity")" ] ||
  fail "the quick start says a search from $low to $high; demo-capacity.json has $(jq -c .concurrency "$capacity")"
[ "$users" = "$(jq .sessions "$capacity")" ] ||
  fail "the quick start says $users virtual users; demo-capacity.json has sessions $(jq .sessions "$capacity")"
[ "$repeats" = "$(jq .repeats "$capacity")" ] ||
  fail "the quick start says $repeats repeats; demo-capacity.json has $(jq .repeats "$capacity")"
read -r replicas blocks < <(printf '%s\n' "$flat" |
  sed -nE 's/.*times\), ([a-z]+) kvsim-vllm replicas \(([0-9,]+) GPU KV blocks each.*/\1 \2/p') || true
[ -n "${blocks:-}" ] || fail "the quick start does not say the demo's replicas and GPU blocks"
case "$replicas" in one) replicas=1 ;; two) replicas=2 ;; three) replicas=3 ;; four) replicas=4 ;; esac
[ "$replicas" = "$(jq .replicas "$capacity")" ] ||
  fail "the quick start says $replicas replicas; demo-capacity.json has $(jq .replicas "$capacity")"
[ "${blocks//,/}" = "$(jq .engine_overrides.num_gpu_blocks "$capacity")" ] ||
  fail "the quick start says $blocks GPU blocks; demo-capacity.json has $(jq .engine_overrides.num_gpu_blocks "$capacity")"
first_screen="$(sed -n '1,40p' "$readme")"
headline="$(grep -m1 '^At TTFT p95 ≤ ' <<<"$first_screen" || true)"
[ -n "$headline" ] || fail "the README's first screen shows no capacity headline"
slo_s="$(jq .slo.ttft_p95_s "$capacity")"
case "$headline" in
  "At TTFT p95 ≤ $slo_s s: GPU "*", CPU_RAM "*", NVME "*) ;;
  *) fail "the first screen's headline is not the demo's SLO (TTFT p95 ≤ $slo_s s) and tiers: $headline" ;;
esac

# 3. The demo's table: the rows under the results header of the `kvctl run demo-sim.json` block.
rows="$(cat "${pages[@]}" | sed -n '/^\$ build\/bin\/kvctl run deploy\/examples\/demo-sim.json$/,/^```$/p' |
  sed -n '/^CONCURRENCY  TIER/,/^[^ ]/p' | grep -E '^ +[0-9]+ ')"
[ -n "$rows" ] || fail "no results table in the demo block of the README or docs/"
[ "$(printf '%s\n' "$rows" | awk '{ print $1 }' | sort -un | paste -sd, | sed 's/^/[/;s/$/]/')" = \
  "$(jq -c '.concurrency | sort' "$spec")" ] || fail "the demo table's concurrency values are not the spec's"
[ "$(printf '%s\n' "$rows" | awk '{ print $2 }' | sort -u | paste -sd,)" = \
  "$(jq -r '.tiers | sort | join(",")' "$spec")" ] || fail "the demo table's tiers are not the spec's"
sessions="$(jq .sessions "$spec")"
printf '%s\n' "$rows" | awk -v want="/$sessions" '$3 !~ want "$" { bad = 1 } END { exit bad }' ||
  fail "the demo table's SESSIONS are not .../$sessions"

# 4. The prose's deltas at 16 users against the table.
read -r p50_cpu p50_nvme p95_cpu p95_nvme < <(printf '%s\n' "$all_flat" |
  sed -nE 's/.*for the run above, at 16 users, mean TTFT [^,]*, p50 ([-+−0-9.]+)% and ([-+−0-9.]+)%, p95 ([-+−0-9.]+)% and ([-+−0-9.]+)%.*/\1 \2 \3 \4/p' |
  sed 's/−/-/g') || true
[ -n "${p95_nvme:-}" ] || fail "the README and docs/ do not quote the demo's 16-user p50/p95 deltas"
column() { printf '%s\n' "$rows" | awk -v tier="$1" -v col="$2" '$1 == 16 && $2 == tier { print $col }'; }
check_delta() {  # NAME QUOTED TIER COLUMN
  local expected
  expected="$(awk -v a="$(column "$3" "$4")" -v g="$(column GPU "$4")" \
    'BEGIN { printf "%+.1f", (a / g - 1) * 100 }')"
  [ "$(printf '%+.1f' "$2")" = "$expected" ] ||
    fail "docs/ quotes $1 $2%; the table above it gives $expected%"
}
check_delta "CPU_RAM p50" "$p50_cpu" CPU_RAM 4
check_delta "NVME p50" "$p50_nvme" NVME 4
check_delta "CPU_RAM p95" "$p95_cpu" CPU_RAM 5
check_delta "NVME p95" "$p95_nvme" NVME 5
echo "PASS ($(printf '%s\n' "$programs" | wc -l) programs, $(printf '%s\n' "$rows" | wc -l) table rows)"
