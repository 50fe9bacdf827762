#!/usr/bin/env bash
# A full disk through the real processes: the NVMe pool's disk fills mid-replay. Before,
# LMCache's L2 stores failed with ENOSPC, logged once in cache-server.log, and the scenario and
# its comparison were reported as good. Now the failed stores are counted from LMCache's own
# counters (submitted minus stored chunks with no store in flight: subscribers/metrics/l2.py),
# the comparison is invalid (l2_store_failed) and kvctl run exits 8. The figures are recomputed
# here from samples.jsonl. The full disk is kvsim-lmcache's --sim-l2-device-bytes (room for ~8
# chunk files), given through a copy of the shipped profiles, as an operator would add a flag.
source "$(dirname "$0")/lib.sh"
kvctl="$KV_BIN/kvctl"

cp -r "$KV_SOURCE/deploy/profiles" "$WORK/profiles"
jq '.extra_args += ["--sim-l2-device-bytes=300000"]' "$KV_SOURCE/deploy/profiles/sim-lmcache.json" \
  > "$WORK/profiles/sim-lmcache.json"
jq '.name = "diskfull" | .tiers = ["GPU", "NVME"] | .concurrency = [4] | .sessions = 8' \
  "$KV_SOURCE/deploy/examples/demo-sim.json" > "$WORK/spec.json"
code=0
"$kvctl" run "$WORK/spec.json" --out "$WORK/out" --profiles "$WORK/profiles" \
  > "$WORK/run.out" 2> "$WORK/run.err" || code=$?
out="$(cat "$WORK/run.out")"
[ "$code" = 8 ] || { cat "$WORK/run.err" >&2; echo "$out" >&2; fail "kvctl run exited $code, want 8 (invalid)"; }
dir="$(ls -d "$WORK/out/diskfull"-*)"
nvme="$dir/01-nvme-c4"

# The cache server's counters from the raw samples: at the last scrape with every submitted store
# task completed, submitted minus stored chunks, each less its value at "before".
read -r submitted failed < <(jq -rs '
  [.[] | select(.source == "cache-server")] as $s
  | ($s | map(select(.kind == "before")) | first | .values) as $b
  | ($s | last | .values) as $a
  | ($s | map(.values | select((.["lmcache_mp_l2_store_submitted_requests_total"] // 0)
        == (.["lmcache_mp_l2_store_completed_requests_total"] // 0))) | last) as $settled
  | def d($x; $m): ($x[$m] // 0) - ($b[$m] // 0);
    [d($a; "lmcache_mp_l2_store_submitted_objects_chunks_total"),
     d($settled; "lmcache_mp_l2_store_submitted_objects_chunks_total")
       - d($settled; "lmcache_mp_l2_store_completed_objects_chunks_total")] | @tsv' "$nvme/samples.jsonl")
[ "$failed" -gt 0 ] || fail "no failed L2 store in the raw counters (submitted $submitted)"
[ "$(jq -r '.lmcache.l2_store_failed_chunks' "$nvme/result.json")" = "$failed" ] ||
  fail "result.json's l2_store_failed_chunks differs from the raw counters' $failed"
[ "$(jq -r '.lmcache.l2_store_submitted_chunks' "$nvme/result.json")" = "$submitted" ] ||
  fail "result.json's l2_store_submitted_chunks differs from the raw counters' $submitted"
commas() { echo "$1" | rev | sed -E 's/([0-9]{3})/\1,/g; s/,$//' | rev; }
expect_contains "$out" "comparison c4: invalid"
expect_contains "$out" "ok ($failed L2 stores failed)"
expect_contains "$out" "l2_store_failed: NVME: $(commas "$failed") of $(commas "$submitted") chunks failed to store into L2"
# What the cache server logged is the disk's own error.
grep -q "No space left on device" "$nvme/logs/cache-server.log" ||
  fail "cache-server.log does not name ENOSPC: $(tail -5 "$nvme/logs/cache-server.log")"
# The GPU tier, without a cache server, reports nothing of the kind.
[ "$(jq '.lmcache.l2_store_failed_chunks // "absent"' "$dir/00-gpu-c4/result.json")" = '"absent"' ] ||
  fail "the GPU tier reports L2 stores"
echo "PASS"
