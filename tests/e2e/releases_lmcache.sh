#!/usr/bin/env bash
# Releases, the cache-server side, through real processes: kvsim-lmcache imitating the LMCache
# releases that broke or skewed a run (each behind its --sim-* flag, given through a copy of the
# shipped profiles as an operator adds a flag), and what kvbench does about each:
#   1. the PrometheusConfig generation has no --metrics-sample-rate (argparse exits 2): the agent
#      probes `server --help` once and leaves the flag out, saying so (flag_not_supported);
#   4. throughput histograms exported as *_throughput_gbs_GB_per_second: read, not null;
#   5. an inherited OTEL_EXPORTER_OTLP_ENDPOINT switches metrics to OTLP push (no /metrics): the
#      cache server never inherits it;
#   6. an L2 config that ignores the eviction block: the pool grows past nvme_pool_gb, and the
#      comparison is invalid (nvme_pool_unbounded).
# Each run records the releases it ran against (result.json versions, kvctl's versions line).
source "$(dirname "$0")/lib.sh"

# profiles_with NAME FLAGS...: a copy of the shipped profiles in $WORK/NAME-profiles whose
# sim-lmcache takes FLAGS (replacing its --metrics-sample-rate when FLAGS give one).
profiles_with() {
  local name=$1; shift
  cp -r "$KV_SOURCE/deploy/profiles" "$WORK/$name-profiles"
  local flags='[]'
  [ $# = 0 ] || flags="$(printf '%s\n' "$@" | jq -R . | jq -s .)"
  jq --argjson flags "$flags" \
    '.extra_args = ([.extra_args[] | select(startswith("--metrics-sample-rate") | not)] + $flags)' \
    "$KV_SOURCE/deploy/profiles/sim-lmcache.json" > "$WORK/$name-profiles/sim-lmcache.json"
}

# run_with NAME TIERS POOL_GB: a small demo-sim run of GPU + TIERS at concurrency 4 with the
# profiles of profiles_with NAME; stdout in $WORK/NAME.out, exit code in $WORK/NAME.code, the
# job's folder in $WORK/NAME.dir.
run_with() {
  jq --arg name "$1" --argjson tiers "$2" --argjson pool "$3" \
    '.name = $name | .tiers = (["GPU"] + $tiers) | .concurrency = [4] | .sessions = 8
     | .nvme_pool_gb = $pool | .engine_overrides.sim_time_scale = 0.05' \
    "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/$1.json"
  local code=0
  "$KV_BIN/kvctl" run "$WORK/$1.json" --out "$WORK/$1" --profiles "$WORK/$1-profiles" \
    > "$WORK/$1.out" 2> "$WORK/$1.err" || code=$?
  echo "$code" > "$WORK/$1.code"
  ls -d "$WORK/$1/$1"-* > "$WORK/$1.dir"
}

# --- 1: the older flag set
profiles_with oldflags --sim-flag-set=prometheus-config --sim-lmcache-version=0.3.9 \
  --metrics-sample-rate=0.01
run_with oldflags '["CPU_RAM"]' 64
out="$(cat "$WORK/oldflags.out")"
exit_ok "$(cat "$WORK/oldflags.code")" "$out" ||
  { cat "$WORK/oldflags.err" >&2; fail "kvctl run exited $(cat "$WORK/oldflags.code"): $out"; }
cpu="$(cat "$WORK/oldflags.dir")/01-cpu-ram-c4"
[ "$(jq -r '.warnings[] | select(.code == "flag_not_supported") | .message' "$cpu/result.json")" != "" ] ||
  fail "no flag_not_supported warning: $(jq -c .warnings "$cpu/result.json")"
jq -r '.warnings[] | select(.code == "flag_not_supported") | .message' "$cpu/result.json" |
  grep -q -- "--metrics-sample-rate=0.01" || fail "the warning does not name --metrics-sample-rate"
! grep -q -- "--metrics-sample-rate" "$cpu/logs/cache-server.log" ||
  fail "the flag reached the cache server: $(grep -m1 -- --metrics-sample-rate "$cpu/logs/cache-server.log")"
[ "$(jq -r '.versions[] | select(.component == "lmcache") | .version' "$cpu/result.json")" = 0.3.9 ] ||
  fail "result.json does not record lmcache 0.3.9: $(jq -c .versions "$cpu/result.json")"
jq -e '.lmcache.lookup_requested_tokens > 0' "$cpu/result.json" > /dev/null ||
  fail "the older release's counters were not read"
expect_contains "$out" "versions: vllm 0.33.0 (simulated) · lmcache 0.3.9 (simulated) · caddy "
expect_contains "$out" "flag_not_supported"

# --- 4: throughput histograms under the older generation's names
profiles_with gbs --sim-throughput-names=gbs_GB_per_second
run_with gbs '["CPU_RAM"]' 64
exit_ok "$(cat "$WORK/gbs.code")" "$(cat "$WORK/gbs.out")" || fail "kvctl run failed: $(cat "$WORK/gbs.err")"
cpu="$(cat "$WORK/gbs.dir")/01-cpu-ram-c4"
grep -q "lmcache_mp_l0_l1_store_throughput_gbs_GB_per_second" "$cpu/samples.jsonl" ||
  grep -q "l0_l1_store" "$cpu/samples.jsonl" || fail "samples.jsonl has no L0-L1 store throughput"
# The store throughput recomputed from the raw samples: sum / count of the histogram's increase.
want="$(jq -rs '
  [.[] | select(.source == "cache-server")] as $s
  | ($s | map(select(.kind == "before")) | first | .values) as $b | ($s | last | .values) as $a
  | [($a | to_entries[] | select(.key | test("l0_l1_store.*_sum$")) | .value)] | add as $sa
  | [($b | to_entries[] | select(.key | test("l0_l1_store.*_sum$")) | .value)] | add // 0 as $sb
  | [($a | to_entries[] | select(.key | test("l0_l1_store.*_count$")) | .value)] | add as $ca
  | [($b | to_entries[] | select(.key | test("l0_l1_store.*_count$")) | .value)] | add // 0 as $cb
  | if ($ca - $cb) > 0 then (($sa - $sb) / ($ca - $cb)) else "none" end' "$cpu/samples.jsonl")"
[ "$want" != none ] || fail "no L0-L1 store observed in the raw samples"
got="$(jq -r '.lmcache.l0_l1_store_gb_per_s // "null"' "$cpu/result.json")"
[ "$got" != null ] || fail "l0_l1_store_gb_per_s is null under the *_gbs_GB_per_second names"
python3 -c "import sys; w, g = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(w - g) > 1e-9 * max(1, abs(w)))" \
  "$want" "$got" || fail "l0_l1_store_gb_per_s $got differs from the raw samples' $want"

# --- 5: an inherited OTLP endpoint
profiles_with otlp --sim-otel-env
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317 run_with otlp '["CPU_RAM"]' 64
exit_ok "$(cat "$WORK/otlp.code")" "$(cat "$WORK/otlp.out")" || fail "kvctl run failed: $(cat "$WORK/otlp.err")"
cpu="$(cat "$WORK/otlp.dir")/01-cpu-ram-c4"
! jq -e '.warnings[]? | select(.code == "cache_server_metrics_unavailable")' "$cpu/result.json" > /dev/null ||
  fail "the cache server's metrics were unavailable with OTEL_EXPORTER_OTLP_ENDPOINT in the agent's environment"
jq -e '.lmcache.lookup_requested_tokens > 0' "$cpu/result.json" > /dev/null ||
  fail "no lmcache_* value with OTEL_EXPORTER_OTLP_ENDPOINT in the agent's environment"
! grep -qi "otlp" "$cpu/logs/cache-server.log" || fail "the cache server pushed to OTLP: $(grep -i -m1 otlp "$cpu/logs/cache-server.log")"

# --- 6: an L2 that ignores the eviction block, and the same pool honoured
profiles_with unbounded --sim-l2-config=no-eviction
run_with unbounded '["NVME"]' 1
code="$(cat "$WORK/unbounded.code")"
out="$(cat "$WORK/unbounded.out")"
[ "$code" = 8 ] || fail "kvctl run exited $code, want 8 (invalid): $out"
expect_contains "$out" "nvme_pool_unbounded: NVME's L2 held up to"
nvme="$(cat "$WORK/unbounded.dir")/01-nvme-c4"
used="$(jq -r '[.[] | select(.source == "cache-server") | .values.lmcache_mp_l2_usage_bytes // 0] | max' <(jq -s . "$nvme/samples.jsonl"))"
[ "$(jq -r '.lmcache.l2_usage_bytes_max' "$nvme/result.json")" = "$used" ] ||
  fail "l2_usage_bytes_max differs from the raw samples' largest $used"
python3 -c "import sys; sys.exit(int(sys.argv[1]) <= 1024**3)" "$used" ||
  fail "the L2 did not outgrow its pool ($used bytes)"
profiles_with bounded
run_with bounded '["NVME"]' 1
! grep -q nvme_pool_unbounded "$WORK/bounded.out" ||
  fail "a release that honours the eviction block was called unbounded: $(cat "$WORK/bounded.out")"
# What the bounded pool evicted, recomputed from the raw samples ("before" to the last scrape).
nvme="$(cat "$WORK/bounded.dir")/01-nvme-c4"
[ -e "$nvme/samples.jsonl" ] || fail "the bounded run has no NVME samples: $(cat "$WORK/bounded.out" "$WORK/bounded.err")"
evicted="$(jq -rs '
  [.[] | select(.source == "cache-server")] as $s
  | (($s | last | .values.lmcache_mp_l2_evicted_objects_chunks_total // 0)
     - ($s | map(select(.kind == "before")) | first | .values.lmcache_mp_l2_evicted_objects_chunks_total // 0))' \
  "$nvme/samples.jsonl")"
[ "$evicted" -gt 0 ] || fail "the bounded pool evicted nothing"
[ "$(jq -r '.lmcache.l2_evicted_chunks' "$nvme/result.json")" = "$evicted" ] ||
  fail "l2_evicted_chunks $(jq -r '.lmcache.l2_evicted_chunks' "$nvme/result.json") differs from the raw samples' $evicted"
echo "PASS"
